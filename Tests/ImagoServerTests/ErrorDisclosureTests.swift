#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import Imago
@testable import ImagoServer

/// Error bodies name the policy or failure without what the server found out on the way
/// (resolved addresses, connection errors); the operator's log has the detail.
@Suite struct ErrorDisclosureTests {
    /// A proxy whose log is recorded, with `internal.test` resolving to a private address.
    static func proxy(_ policy: SourcePolicy, log: LogRecorder, extra: [String: [IPAddress]] = [:]) -> ImageProxy {
        var configuration = ImageProxyConfiguration(sourcePolicy: policy, logger: log.logger)
        configuration.loaderConfiguration.connectTimeout = .seconds(2)
        var table: [String: [IPAddress]] = ["internal.test": [.v4(10, 1, 2, 3)], "origin.test": [.v4(127, 0, 0, 1)]]
        table.merge(extra) { $1 }
        return ImageProxy.testing(configuration, resolver: StaticResolver(table, fallback: nil))
    }

    static func body(_ response: ProxyResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func aPrivateAddressIsNotNamedToTheClient() async throws {
        let log = LogRecorder()
        let proxy = Self.proxy(SourcePolicy(), log: log)
        defer { Task { await proxy.shutdown() } }
        let response = await proxy.respond(path: ServerTests.path("w:10", URL(string: "http://internal.test/a.jpg")!))
        #expect(response.status == 403)
        #expect(Self.body(response).contains("forbidden_source"))
        #expect(!Self.body(response).contains("10.1.2.3"), "\(Self.body(response))")
        #expect(log.all.contains { $0.contains("10.1.2.3") }, "the operator's log has the address: \(log.all)")
    }

    @Test func aRedirectIntoThePrivateNetworkIsNotNamedToTheClient() async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        origin.setBehavior("/hop", .status(302, headers: ["Location": "http://internal.test:\(origin.port)/secret.jpg"]))
        let log = LogRecorder()
        let proxy = Self.proxy(SourcePolicy(allowedAddresses: [.v4(127, 0, 0, 1)]), log: log)
        defer { Task { await proxy.shutdown() } }
        let response = await proxy.respond(path: ServerTests.path("w:10", URL(string: "http://origin.test:\(origin.port)/hop")!))
        #expect(response.status == 403)
        for leak in ["10.1.2.3", "internal.test", "secret.jpg"] {
            #expect(!Self.body(response).contains(leak), "\(leak) in \(Self.body(response))")
        }
        #expect(log.all.contains { $0.contains("10.1.2.3") }, "\(log.all)")
    }

    @Test func aConnectionFailureDoesNotNameTheAddress() async throws {
        // A name resolving to an allowed loopback address where nothing listens.
        let port = try await Self.closedPort()
        let log = LogRecorder()
        let proxy = Self.proxy(
            SourcePolicy(allowedAddresses: [.v4(127, 0, 0, 9)]), log: log, extra: ["closed.test": [.v4(127, 0, 0, 9)]])
        defer { Task { await proxy.shutdown() } }
        let response = await proxy.respond(path: ServerTests.path("w:10", URL(string: "http://closed.test:\(port)/a.jpg")!))
        #expect(response.status == 502 || response.status == 504, "\(Self.body(response))")
        #expect(Self.body(response).contains(response.status == 502 ? "source_failed" : "source_timeout"), "\(Self.body(response))")
        #expect(!Self.body(response).contains("127.0.0.9"), "\(Self.body(response))")
        #expect(!Self.body(response).contains("refused"), "the transport's words stay in the log: \(Self.body(response))")
        #expect(log.all.contains { $0.contains("closed.test") && $0.contains("refused") }, "\(log.all)")
    }

    /// A port on 127.0.0.9 nothing listens on: one a server had, closed again.
    static func closedPort() async throws -> Int {
        let server = try await TestServer.start()
        let port = server.port
        try await server.shutdown()
        return port
    }
}
#endif
