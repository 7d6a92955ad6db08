import Foundation
import Imago
import ImagoTestSupport
import Testing

extension LoadingTests {
    /// Every way a download can go wrong, provoked on a real server, with the error each loader must
    /// report.
    @Suite struct DataLoaderFailureTests {
        @Test(arguments: LoaderKind.allCases, [404, 500, 503])
        func reportsAnErrorStatusWithItsCode(_ kind: LoaderKind, status: Int) async throws {
            try await withTestServer { server in
                server.setBehavior("/a.png", .status(status, body: Data("no".utf8)))
                let url = server.url(for: "/a.png")
                let error = try await kind.withLoader { await $0.error(loading: url) }
                #expect(error == .httpStatus(url, statusCode: status))
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func reportsAnUnregisteredPathAs404(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                let url = server.url(for: "/missing.png")
                let error = try await kind.withLoader { await $0.error(loading: url) }
                #expect(error == .httpStatus(url, statusCode: 404))
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func refusesADeclaredLengthOverTheLimit(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.set("/big.png", data: sampleBytes(5_000))
                let url = server.url(for: "/big.png")
                let error = try await kind.withLoader(limit(1_000)) { await $0.error(loading: url) }
                #expect(error == .bodyTooLarge(url, limit: 1_000))
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func stopsAChunkedBodyAsSoonAsItPassesTheLimit(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.set("/big.png", data: sampleBytes(5_000))
                server.setBehavior("/big.png", .chunked(chunkSize: 500))
                let url = server.url(for: "/big.png")
                let log = ProgressLog()
                let error = try await kind.withLoader(limit(1_000)) { await $0.error(loading: url, progress: log.record) }
                #expect(error == .bodyTooLarge(url, limit: 1_000))
                #expect(log.all.allSatisfy { $0.completed <= 1_000 })
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func abandonsAnEndlessBodyAndItsConnection(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.setBehavior("/endless", .endless(chunkSize: 8_192))
                let url = server.url(for: "/endless")
                let error = try await kind.withLoader(limit(1_000_000)) { await $0.error(loading: url) }
                #expect(error == .bodyTooLarge(url, limit: 1_000_000))
                #expect(await server.waitForConnections(atMost: 0, within: .seconds(60)))
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func reportsATruncatedBodyAsALengthMismatch(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.set("/a.png", data: sampleBytes(5_000))
                server.setBehavior("/a.png", .truncated(sendBytes: 1_000))
                let url = server.url(for: "/a.png")
                let error = try await kind.withLoader { await $0.error(loading: url) }
                guard case .bodyLengthMismatch(url, expected: 5_000, let received) = error else {
                    Issue.record("expected bodyLengthMismatch, got \(String(describing: error))")
                    return
                }
                #expect(received <= 1_000)
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func reportsALongerDeclaredLengthAsAMismatch(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.set("/a.png", data: sampleBytes(5_000))
                server.setBehavior("/a.png", .wrongContentLength(declared: 6_000))
                let url = server.url(for: "/a.png")
                let error = try await kind.withLoader { await $0.error(loading: url) }
                #expect(error == .bodyLengthMismatch(url, expected: 6_000, received: 5_000))
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func reportsADroppedConnectionAsAFailedConnection(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.setBehavior("/a.png", .dropConnection)
                let error = try await kind.withLoader { await $0.error(loading: server.url(for: "/a.png")) }
                #expect(error?.code == "connection_failed")
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func reportsARefusedConnectionReadably(_ kind: LoaderKind) async throws {
            // A port that was just free: start a server, note its port, stop it.
            let server = try await TestServer.start()
            let url = server.url(for: "/a.png")
            try await server.shutdown()
            let error = try await kind.withLoader { await $0.error(loading: url) }
            guard case .connectionFailed(url, let reason) = error else {
                Issue.record("expected connectionFailed, got \(String(describing: error))")
                return
            }
            #expect(reason.lowercased().contains("connect"))
        }

        @Test(arguments: LoaderKind.allCases, [200, 204])
        func refusesAnEmptyBody(_ kind: LoaderKind, status: Int) async throws {
            try await withTestServer { server in
                server.setBehavior("/a.png", .status(status))
                let url = server.url(for: "/a.png")
                let error = try await kind.withLoader { await $0.error(loading: url) }
                #expect(error == .emptyBody(url))
            }
        }

        @Test(arguments: LoaderKind.allCases, ["file:///tmp/a.png", "ftp://127.0.0.1/a.png", "data:image/png;base64,iVBORw0KGgo="])
        func refusesOtherSchemesWithoutTouchingTheNetwork(_ kind: LoaderKind, address: String) async throws {
            try await withTestServer { server in
                let url = try #require(URL(string: address))
                let error = try await kind.withLoader { await $0.error(loading: url) }
                #expect(error == .unsupportedScheme(url))
                #expect(server.totalRequestCount == 0)
                #expect(server.maximumConcurrentConnections == 0)
            }
        }

        private func limit(_ bytes: Int) -> DataLoader.Configuration {
            var configuration = DataLoader.Configuration()
            configuration.maximumBodySize = bytes
            // The body limit is what these tests provoke: the whole-download timeout stays out of
            // its way even when the 2 cores are shared with browser and fleet tests.
            configuration.downloadTimeout = .seconds(300)
            return configuration
        }
    }
}
