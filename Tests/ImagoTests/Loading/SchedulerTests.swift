import Foundation
import Synchronization
import ImagoTestSupport
import Testing

@testable import Imago

@Suite("Scheduler")
struct SchedulerTests {
    static let url = URL(string: "https://images.example.com/a.jpg")!

    @Test("A task cancelled before it asks for a slot is refused and runs nothing, free slot or not")
    func cancelledBeforeAsking() async {
        let scheduler = Scheduler(maximumConcurrent: 1)
        let ran = Atomic(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await scheduler.run(priority: .normal, cancellation: .cancelled(Self.url)) { () async throws(ImagePipeline.Error) in
                ran.store(true, ordering: .relaxed)
            }
        }
        await #expect(throws: ImagePipeline.Error.cancelled(Self.url)) { try await task.value }
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
        #expect(scheduler.activeCount == 0)
        #expect(scheduler.queuedCount == 0)
    }

    @Test("With a free slot a job runs at once; with none it waits for the slot to free")
    func waitsForASlot() async throws {
        let scheduler = Scheduler(maximumConcurrent: 1)
        let (holding, held) = AsyncStream<Void>.makeStream()
        let (releasing, release) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await scheduler.run(priority: .normal, cancellation: .cancelled(Self.url)) { () async throws(ImagePipeline.Error) in
                held.yield()
                for await _ in releasing { break }
                return 1
            }
        }
        for await _ in holding { break }
        #expect(scheduler.activeCount == 1)
        let second = Task {
            try await scheduler.run(priority: .normal, cancellation: .cancelled(Self.url)) { () async throws(ImagePipeline.Error) in 2 }
        }
        #expect(await eventually(within: .seconds(10)) { scheduler.queuedCount == 1 })
        release.yield()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        #expect(scheduler.activeCount == 0)
        #expect(scheduler.queuedCount == 0)
    }
}
