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
            // What is tested is the release, not speed: timeouts far above what a loopback request
            // waits for a core while the browser, fleet and soak tests load both (CI once saw the
            // default 15 s stall timeout expire here).
            var loader: HTTPClientDataLoader? = HTTPClientDataLoader(
                configuration: DataLoader.Configuration(
                    connectTimeout: .seconds(120), downloadTimeout: .seconds(300), stallTimeout: .seconds(120)))
            let response = try await loader?.load(server.url(for: "/a.png"))
            #expect(response?.data.count == 100)
            loader = nil
            #expect(await eventually { server.currentConnections == 0 })
        }
    }
}
#endif
