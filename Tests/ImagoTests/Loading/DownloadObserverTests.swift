import Foundation
import Imago
import ImagoTestSupport
import Testing

extension LoadingTests {
    /// What each loader shows a ``DownloadObserver``: the body as it grows, and what arrived of a
    /// body that stopped early.
    @Suite struct DownloadObserverTests {
        /// Collects what an observer is told, from the transport's threads.
        final class Recorder: Sendable {
            private let state = Locked<(bodies: [DataLoader.Response], interruptions: [DataLoader.Response], progress: [ImageTask.Progress])>(
                ([], [], []))

            var bodies: [DataLoader.Response] { state.withLock { $0.bodies } }
            var interruptions: [DataLoader.Response] { state.withLock { $0.interruptions } }
            var progress: [ImageTask.Progress] { state.withLock { $0.progress } }

            var observer: DownloadObserver {
                DownloadObserver(
                    progress: { update in self.state.withLock { $0.progress.append(update) } },
                    receivedBody: { body in self.state.withLock { $0.bodies.append(body) } },
                    interrupted: { body in self.state.withLock { $0.interruptions.append(body) } })
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func showsTheBodyGrowingUpToTheWholeResponse(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                let bytes = sampleBytes(40_000)
                server.set("/a.jpg", data: bytes, etag: "\"v1\"")
                server.setBehavior("/a.jpg", .chunked(chunkSize: 4_000))
                let recorder = Recorder()
                let response = try await kind.withLoader { loader in
                    try await loader.loadData(for: DataLoader.Request(url: server.url(for: "/a.jpg")), observer: recorder.observer)
                }
                #expect(response.data == bytes)
                let bodies = recorder.bodies
                #expect(bodies.count >= 2, "a body sent in ten pieces arrives in more than one")
                // Each is a prefix of the next, and the last is the whole body.
                for (earlier, later) in zip(bodies, bodies.dropFirst()) {
                    #expect(earlier.data.count < later.data.count)
                    #expect(later.data.starts(with: earlier.data))
                }
                #expect(bodies.last?.data == bytes)
                #expect(bodies.allSatisfy { $0.statusCode == 200 && $0.headers["etag"] == "\"v1\"" })
                #expect(recorder.progress.last?.completed == Int64(bytes.count))
                #expect(recorder.interruptions.isEmpty)
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func showsWhatArrivedOfACutBody(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                let bytes = sampleBytes(20_000)
                server.set("/a.jpg", data: bytes)
                server.setBehavior("/a.jpg", .truncated(sendBytes: 10_000))
                let recorder = Recorder()
                let url = server.url(for: "/a.jpg")
                let error = try await kind.withLoader { loader -> ImagePipeline.Error? in
                    do throws(ImagePipeline.Error) {
                        _ = try await loader.loadData(for: DataLoader.Request(url: url), observer: recorder.observer)
                        return nil
                    } catch {
                        return error
                    }
                }
                guard case .bodyLengthMismatch(url, expected: 20_000, _) = error else {
                    Issue.record("expected bodyLengthMismatch, got \(String(describing: error))")
                    return
                }
                let interruptions = recorder.interruptions
                try #require(interruptions.count == 1)
                #expect(interruptions[0].statusCode == 200)
                #expect(interruptions[0].data.count <= 10_000)
                #expect(bytes.starts(with: interruptions[0].data), "exactly the bytes sent, in order")
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func showsWhatArrivedWhenTheCallerCancels(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                let bytes = sampleBytes(64_000)
                server.set("/a.jpg", data: bytes)
                server.setBehavior("/a.jpg", .trickle(bytesPerInterval: 8_000, interval: .milliseconds(200)))
                let recorder = Recorder()
                let url = server.url(for: "/a.jpg")
                try await kind.withLoader { loader in
                    let task = Task { try await loader.loadData(for: DataLoader.Request(url: url), observer: recorder.observer) }
                    #expect(await eventually { !recorder.bodies.isEmpty })
                    task.cancel()
                    let result = await task.result
                    #expect(throws: ImagePipeline.Error.cancelled(url)) { try result.get() }
                }
                let interruptions = recorder.interruptions
                try #require(interruptions.count == 1)
                #expect(!interruptions[0].data.isEmpty)
                #expect(bytes.starts(with: interruptions[0].data))
            }
        }

        /// A loader written before the observer existed gets progress only, through the default.
        @Test func aLoaderWithoutItsOwnImplementationReportsProgressOnly() async throws {
            struct OldLoader: DataLoading {
                func loadData(
                    for request: DataLoader.Request, progress: @escaping @Sendable (ImageTask.Progress) -> Void
                ) async throws(ImagePipeline.Error) -> DataLoader.Response {
                    progress(ImageTask.Progress(completed: 3, total: 3))
                    return DataLoader.Response(data: Data([1, 2, 3]), statusCode: 200, headers: [:])
                }
            }
            let recorder = Recorder()
            let response = try await OldLoader().loadData(
                for: DataLoader.Request(url: URL(string: "https://example.com/a.jpg")!), observer: recorder.observer)
            #expect(response.data == Data([1, 2, 3]))
            #expect(recorder.progress == [ImageTask.Progress(completed: 3, total: 3)])
            #expect(recorder.bodies.isEmpty)
        }
    }
}
