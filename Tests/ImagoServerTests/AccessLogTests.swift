#if os(Linux)
import Foundation
import Hummingbird
import Testing

@testable import ImagoServer

/// The access log writes what was asked without the secrets sources carry.
@Suite struct AccessLogTests {
    typealias Log = AccessLogMiddleware<BasicRequestContext>

    @Test(arguments: [false, true])
    func redactsTheSourcesQueryUserAndFragment(base64: Bool) throws {
        let source = try #require(URL(string: "https://user:secret@cdn.example/a.jpg?token=abc123&sig=zz#frag"))
        let path = "/insecure" + URLSigner.unsignedPart(options: ["rs:fit:100:100"], source: source, format: nil, encodeSource: base64)
        let line = Log.logged(path: path)
        for secret in ["abc123", "secret", "token", "frag", "zz"] {
            #expect(!line.contains(secret), "\(line)")
        }
        #expect(line.contains("cdn.example/a.jpg"), "\(line)")
        #expect(line.contains("rs:fit:100:100"), "\(line)")
    }

    @Test func cutsLongPathsThatAreNotProcessingPaths() {
        let path = "/" + String(repeating: "a", count: 9000)
        let line = Log.logged(path: path)
        #expect(line.count < 300)
        #expect(line.hasSuffix("(9001 bytes)"))
        #expect(Log.logged(path: "/healthz") == "/healthz")
    }
}
#endif
