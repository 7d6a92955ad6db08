import Foundation
import Imago
import ImagoTestSupport
import Testing

extension LoadingTests {
    /// Time limits and cancellation. The limits are short and the server's delays long, so every
    /// outcome is clear-cut; the only durations asserted are generous upper bounds.
    @Suite struct DataLoaderTimingTests {
        @Test(arguments: LoaderKind.allCases)
        func stopsADownloadThatTakesTooLong(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.set("/slow.png", data: sampleBytes(100))
                server.setBehavior("/slow.png", .delay(.seconds(20)))
                var configuration = DataLoader.Configuration()
                configuration.downloadTimeout = .milliseconds(300)
                let url = server.url(for: "/slow.png")
                let started = ContinuousClock.now
                let error = try await kind.withLoader(configuration) { await $0.error(loading: url) }
                #expect(error == .timedOut(url, .download, after: .milliseconds(300)))
                #expect(ContinuousClock.now - started < .seconds(30))
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func stopsADownloadThatStalls(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.set("/slow.png", data: sampleBytes(1_000))
                server.setBehavior("/slow.png", .trickle(bytesPerInterval: 100, interval: .seconds(20)))
                var configuration = DataLoader.Configuration()
                configuration.stallTimeout = .milliseconds(300)
                let url = server.url(for: "/slow.png")
                let started = ContinuousClock.now
                let error = try await kind.withLoader(configuration) { await $0.error(loading: url) }
                #expect(error == .timedOut(url, .stall, after: .milliseconds(300)))
                #expect(ContinuousClock.now - started < .seconds(30))
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func keepsATrickleThatNeverFallsSilentForLong(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.set("/slow.png", data: sampleBytes(500))
                server.setBehavior("/slow.png", .trickle(bytesPerInterval: 100, interval: .milliseconds(50)))
                var configuration = DataLoader.Configuration()
                // Far above the 50 ms gaps: the whole suite shares two cores with codec tests, so a
                // short limit here would measure the machine's load, not the loader.
                configuration.stallTimeout = .seconds(30)
                let response = try await kind.withLoader(configuration) { try await $0.load(server.url(for: "/slow.png")) }
                #expect(response.data == sampleBytes(500))
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func cancellingTheCallerCancelsTheDownloadAndItsConnection(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.set("/slow.png", data: sampleBytes(100_000))
                server.setBehavior("/slow.png", .trickle(bytesPerInterval: 100, interval: .milliseconds(20)))
                let url = server.url(for: "/slow.png")
                try await kind.withLoader { loader in
                    let download = Task { await loader.error(loading: url) }
                    #expect(await eventually { server.requestCount(for: "/slow.png") == 1 })
                    let cancelled = ContinuousClock.now
                    download.cancel()
                    let error = await download.value
                    #expect(error == .cancelled(url))
                    #expect(ContinuousClock.now - cancelled < .seconds(5))
                    #expect(await server.waitForConnections(atMost: 0, within: .seconds(60)))
                }
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func aCancelledCallerNeverReachesTheServer(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.set("/a.png", data: sampleBytes(100))
                let url = server.url(for: "/a.png")
                let error = try await kind.withLoader { loader in
                    let download = Task {
                        withUnsafeCurrentTask { $0?.cancel() }
                        return await loader.error(loading: url)
                    }
                    return await download.value
                }
                #expect(error == .cancelled(url))
                #expect(server.totalRequestCount == 0)
            }
        }
    }
}
