import Foundation
import Imago
import ImagoTestSupport
import Testing

/// Groups the data loader suites, so that `swift test --filter Loading` runs them all.
@Suite struct LoadingTests {}

#if os(Linux)
extension LoadingTests {
    /// The pipeline's default loader is never shut down explicitly; AsyncHTTPClient traps (in
    /// debug builds) when a running client is released, so the loader must handle its own end.
    @Test func anHTTPClientLoaderReleasedWithoutShutdownEndsCleanly() async throws {
        try await withTestServer { server in
            server.set("/a.png", data: Data(repeating: 7, count: 100))
            var loader: HTTPClientDataLoader? = HTTPClientDataLoader()
            let response = try await loader?.load(server.url(for: "/a.png"))
            #expect(response?.data.count == 100)
            loader = nil
            #expect(await eventually { server.currentConnections == 0 })
        }
    }
}
#endif
