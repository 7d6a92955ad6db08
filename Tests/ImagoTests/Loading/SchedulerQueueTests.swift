import ImagoTestSupport
import Testing

@testable import Imago

@Suite("Scheduler queue")
struct SchedulerQueueTests {
    @Test("Never more than the limit run; the rest wait")
    func limit() {
        var queue = SchedulerQueue(maximumConcurrent: 2)
        #expect(queue.enqueue(1, priority: .normal) == [1])
        #expect(queue.enqueue(2, priority: .normal) == [2])
        #expect(queue.enqueue(3, priority: .normal) == [])
        #expect(queue.running == [1, 2])
        #expect(queue.waitingCount == 1)
        #expect(queue.finish(1) == [3])
        #expect(queue.running == [2, 3])
    }

    @Test("A job starts at once only when a slot is free; it frees its slot as any other")
    func startIfFree() {
        var queue = SchedulerQueue(maximumConcurrent: 2)
        let first = queue.startIfFree(1)
        #expect(first)
        #expect(queue.enqueue(2, priority: .normal) == [2])
        let third = queue.startIfFree(3)
        #expect(!third, "no slot free")
        #expect(queue.running == [1, 2])
        #expect(queue.waitingCount == 0, "a job refused at once is not queued")
        #expect(queue.enqueue(3, priority: .normal) == [])
        #expect(queue.finish(1) == [3], "the job started at once hands its slot to the one waiting")
        let whileFull = queue.startIfFree(4)
        #expect(!whileFull)
        _ = queue.finish(2)
        _ = queue.finish(3)
        #expect(queue.running.isEmpty)
        let whenFree = queue.startIfFree(4)
        #expect(whenFree)
        #expect(queue.running == [4])
    }

    @Test("Higher priority starts first, then arrival order")
    func order() {
        var queue = SchedulerQueue(maximumConcurrent: 1)
        _ = queue.enqueue(1, priority: .normal)
        _ = queue.enqueue(2, priority: .low)
        _ = queue.enqueue(3, priority: .normal)
        _ = queue.enqueue(4, priority: .veryHigh)
        _ = queue.enqueue(5, priority: .normal)
        var started: [SchedulerQueue.ID] = []
        var current: SchedulerQueue.ID = 1
        while true {
            let next = queue.finish(current)
            guard let first = next.first else { break }
            started.append(first)
            current = first
        }
        #expect(started == [4, 3, 5, 2])
    }

    @Test("A priority raised while waiting takes effect")
    func raisedPriority() {
        var queue = SchedulerQueue(maximumConcurrent: 1)
        _ = queue.enqueue(1, priority: .normal)
        _ = queue.enqueue(2, priority: .normal)
        _ = queue.enqueue(3, priority: .low)
        queue.updatePriority(3, to: .high)
        #expect(queue.finish(1) == [3])
    }

    @Test("Cancelling a waiting job removes it; cancelling a running one frees its slot")
    func cancel() {
        var queue = SchedulerQueue(maximumConcurrent: 1)
        _ = queue.enqueue(1, priority: .normal)
        _ = queue.enqueue(2, priority: .normal)
        _ = queue.enqueue(3, priority: .normal)
        #expect(queue.cancel(2) == [])
        #expect(queue.waitingCount == 1)
        #expect(queue.cancel(1) == [3])
        #expect(queue.finish(3) == [])
        #expect(queue.running.isEmpty)
    }

    @Test("A larger limit starts waiting jobs at once")
    func raiseLimit() {
        var queue = SchedulerQueue(maximumConcurrent: 1)
        _ = queue.enqueue(1, priority: .normal)
        _ = queue.enqueue(2, priority: .normal)
        _ = queue.enqueue(3, priority: .normal)
        #expect(queue.setMaximumConcurrent(3) == [2, 3])
    }

    /// Drains a queue with one slot: the order in which waiting jobs start.
    private func drain(_ queue: inout SchedulerQueue, running first: SchedulerQueue.ID) -> [SchedulerQueue.ID] {
        var started: [SchedulerQueue.ID] = []
        var current = first
        while let next = queue.finish(current).first {
            started.append(next)
            current = next
        }
        return started
    }

    @Test("10,000 waiting jobs start by priority, then arrival, after reprioritising and cancelling")
    func manyEntries() {
        var random = SplitMix(seed: 42)  // ImagoTestSupport's: a failure is reproducible
        var queue = SchedulerQueue(maximumConcurrent: 1)
        #expect(queue.enqueue(0, priority: .normal) == [0])
        var priorities: [SchedulerQueue.ID: ImageRequest.Priority] = [:]
        for id in SchedulerQueue.ID(1)...10_000 {
            let priority = ImageRequest.Priority.allCases.randomElement(using: &random)!
            priorities[id] = priority
            #expect(queue.enqueue(id, priority: priority).isEmpty)
        }
        // Move a third of them, some several times, and cancel another fifth.
        for _ in 0..<3_333 {
            let id = SchedulerQueue.ID.random(in: 1...10_000, using: &random)
            guard priorities[id] != nil else { continue }
            let priority = ImageRequest.Priority.allCases.randomElement(using: &random)!
            queue.updatePriority(id, to: priority)
            priorities[id] = priority
        }
        for _ in 0..<2_000 {
            let id = SchedulerQueue.ID.random(in: 1...10_000, using: &random)
            #expect(queue.cancel(id).isEmpty)
            priorities[id] = nil
        }
        #expect(queue.waitingCount == priorities.count)
        let expected = priorities.sorted { lhs, rhs in
            lhs.value != rhs.value ? lhs.value > rhs.value : lhs.key < rhs.key
        }.map(\.key)
        #expect(drain(&queue, running: 0) == expected)
        #expect(queue.waitingCount == 0)
    }

    @Test("A job moved to another priority and back keeps its place by arrival")
    func movedBack() {
        var queue = SchedulerQueue(maximumConcurrent: 1)
        _ = queue.enqueue(0, priority: .normal)
        for id in SchedulerQueue.ID(1)...5 { _ = queue.enqueue(id, priority: .normal) }
        queue.updatePriority(2, to: .high)
        queue.updatePriority(2, to: .normal)
        queue.updatePriority(4, to: .veryLow)
        queue.updatePriority(4, to: .veryHigh)
        #expect(drain(&queue, running: 0) == [4, 1, 2, 3, 5])
    }

    @Test("Cancelled and re-prioritised entries leave no garbage: the heap stays proportional to the waiting jobs")
    func boundedGarbage() {
        var queue = SchedulerQueue(maximumConcurrent: 1)
        _ = queue.enqueue(0, priority: .normal)
        for id in SchedulerQueue.ID(1)...10_000 { _ = queue.enqueue(id, priority: .low) }
        for round in 0..<20 {
            for id in SchedulerQueue.ID(1)...10_000 {
                queue.updatePriority(id, to: round.isMultiple(of: 2) ? .high : .low)
            }
        }
        for id in SchedulerQueue.ID(1)...9_990 { _ = queue.cancel(id) }
        #expect(queue.waitingCount == 10)
        #expect(queue.storedEntryCount <= 2 * queue.waitingCount + 64)
        #expect(drain(&queue, running: 0) == Array(9_991...10_000))
    }
}
