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
}
