import Foundation
import Imago
import ImagoTestSupport
import Testing

extension LoadingTests {
    /// Cancellations that land at every moment of a transfer's start: none may leave a caller, a
    /// session task or a scheduler slot waiting.
    @Suite struct CancellationRaceTests {
        /// Cancellations, each after a random short delay (zero included), against a server that
        /// answers slowly, so they land before, during and after the start of the transfer.
        static let rounds = 2_000

        @Test func urlSessionLoaderLeavesNoTaskBehind() async throws {
            try await withTestServer { server in
                server.set("/slow.jpg", data: sampleBytes(64))
                server.setBehavior("/slow.jpg", .delay(.milliseconds(200)))
                let url = server.url(for: "/slow.jpg")
                let loader = URLSessionDataLoader(configuration: DataLoader.Configuration(maximumConnections: 8))
                var generator = SystemRandomNumberGenerator()
                var outcomes: [String: Int] = [:]
                for batch in 0..<(Self.rounds / 100) {
                    let delays = (0..<100).map { _ in Int.random(in: 0...400, using: &generator) }
                    let codes = await withTaskGroup(of: String.self) { group in
                        for delay in delays {
                            group.addTask {
                                let task = Task { await loader.error(loading: url) }
                                if delay > 0 { try? await Task.sleep(for: .microseconds(delay * 10)) }
                                task.cancel()
                                return await task.value?.code ?? "ok"
                            }
                        }
                        return await group.reduce(into: [String]()) { $0.append($1) }
                    }
                    for code in codes { outcomes[code, default: 0] += 1 }
                    #expect(codes.allSatisfy { $0 == "cancelled" || $0 == "ok" }, "batch \(batch): \(codes)")
                }
                #expect(outcomes.values.reduce(0, +) == Self.rounds)
                #expect(await eventually { loader.activeTransferCount == 0 }, "\(loader.activeTransferCount) tasks left")
                // The loader still works afterwards.
                server.setBehavior("/slow.jpg", .normal)
                let response = try await loader.load(url)
                #expect(response.data == sampleBytes(64))
                await loader.shutdown()
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func pipelineLeavesNoSchedulerSlotBehind(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.setBehavior("/slow.jpg", .delay(.milliseconds(100)))
                try await kind.withLoader { loader in
                    let pipeline = ImagePipeline(
                        configuration: .init(
                            dataLoader: loader, memoryCache: nil, maximumConcurrentDownloads: 4, retryPolicy: .never,
                            connectivity: .alwaysReachable))
                    var generator = SystemRandomNumberGenerator()
                    for batch in 0..<10 {
                        let delays = (0..<50).map { _ in Int.random(in: 0...300, using: &generator) }
                        await withTaskGroup(of: Void.self) { group in
                            for (index, delay) in delays.enumerated() {
                                // Distinct URLs, so no two requests share a download.
                                let url = server.url(for: "/slow.jpg?b=\(batch)&i=\(index)")
                                group.addTask {
                                    let task = Task { try await pipeline.image(for: ImageRequest(url: url)) }
                                    if delay > 0 { try? await Task.sleep(for: .microseconds(delay * 10)) }
                                    task.cancel()
                                    _ = await task.result
                                }
                            }
                        }
                    }
                    #expect(await eventually {
                        let statistics = pipeline.statistics()
                        return statistics.activeDownloads == 0 && statistics.queuedDownloads == 0
                    })
                    if let loader = loader as? URLSessionDataLoader {
                        #expect(await eventually { loader.activeTransferCount == 0 })
                    }
                }
            }
        }
    }
}
