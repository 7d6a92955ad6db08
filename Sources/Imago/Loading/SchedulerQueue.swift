/// The download queue as a value: which jobs run, which wait, and who starts next.
///
/// At most `maximumConcurrent` jobs run at once. Waiting jobs start in priority order, and in
/// arrival order within a priority. Each method returns the jobs its change lets start, so the
/// owner resumes them outside any lock and the rules are tested without timing.
///
/// Picking the next job is O(log n): waiting jobs sit in a binary heap ordered by priority, then
/// arrival. A cancelled or re-prioritised job's old heap entry is not searched for; it is left in
/// place and skipped when it surfaces (it no longer matches `waiting`), and the heap is rebuilt
/// when such stale entries outnumber the live ones, so its size stays proportional to the queue.
struct SchedulerQueue: Sendable {
    typealias ID = UInt64

    /// One heap entry: a job's place as of when it was pushed.
    private struct Slot {
        var priority: ImageRequest.Priority
        var arrival: UInt64
        var id: ID

        /// Whether `self` starts before `other`: higher priority, then earlier arrival.
        func precedes(_ other: Slot) -> Bool {
            priority != other.priority ? priority > other.priority : arrival < other.arrival
        }
    }

    /// How many jobs may run at once.
    var maximumConcurrent: Int
    private(set) var running: Set<ID> = []
    /// The truth about waiting jobs; a heap entry that disagrees with it is stale.
    private var waiting: [ID: (priority: ImageRequest.Priority, arrival: UInt64)] = [:]
    private var heap: [Slot] = []
    private var arrivals: UInt64 = 0

    init(maximumConcurrent: Int) {
        precondition(maximumConcurrent >= 1, "A scheduler needs at least one slot")
        self.maximumConcurrent = maximumConcurrent
    }

    /// Jobs waiting for a slot.
    var waitingCount: Int { waiting.count }

    /// Heap entries held, stale ones included (for tests of the garbage bound).
    var storedEntryCount: Int { heap.count }

    /// A job asks for a slot: returns the jobs that may start now, this one among them when a
    /// slot was free and nothing better waits.
    mutating func enqueue(_ id: ID, priority: ImageRequest.Priority) -> [ID] {
        arrivals += 1
        waiting[id] = (priority, arrivals)
        push(Slot(priority: priority, arrival: arrivals, id: id))
        return startable()
    }

    /// A job that may start at once, without waiting its turn: true (and it runs) when a slot is
    /// free and no job waits; false leaves the queue unchanged, and the job must ``enqueue(_:priority:)``.
    mutating func startIfFree(_ id: ID) -> Bool {
        guard waiting.isEmpty, running.count < maximumConcurrent else { return false }
        running.insert(id)
        return true
    }

    /// A running job ended: returns the waiting jobs that may start now.
    mutating func finish(_ id: ID) -> [ID] {
        running.remove(id)
        return startable()
    }

    /// A job gave up (its caller cancelled), running or waiting: returns jobs that may start now.
    mutating func cancel(_ id: ID) -> [ID] {
        if waiting.removeValue(forKey: id) != nil {
            compactIfMostlyStale()
            return []
        }
        return finish(id)
    }

    /// Moves a waiting job to another priority (no effect on a running one).
    mutating func updatePriority(_ id: ID, to priority: ImageRequest.Priority) {
        guard let current = waiting[id], current.priority != priority else { return }
        waiting[id]?.priority = priority
        push(Slot(priority: priority, arrival: current.arrival, id: id))  // keeps its arrival
        compactIfMostlyStale()
    }

    /// Changes the number of slots; returns the jobs a larger limit lets start.
    mutating func setMaximumConcurrent(_ limit: Int) -> [ID] {
        precondition(limit >= 1, "A scheduler needs at least one slot")
        maximumConcurrent = limit
        return startable()
    }

    /// Moves the best waiting jobs into free slots.
    private mutating func startable() -> [ID] {
        var started: [ID] = []
        while running.count < maximumConcurrent, let next = popWaiting() {
            waiting[next] = nil
            running.insert(next)
            started.append(next)
        }
        return started
    }

    /// Removes and returns the best waiting job, dropping stale entries on the way.
    private mutating func popWaiting() -> ID? {
        while let top = heap.first {
            removeTop()
            if isLive(top) { return top.id }
        }
        return nil
    }

    private func isLive(_ slot: Slot) -> Bool {
        guard let current = waiting[slot.id] else { return false }
        return current.priority == slot.priority && current.arrival == slot.arrival
    }

    /// Rebuilds the heap from the live entries once stale ones are the majority: amortised O(1)
    /// per change, and memory proportional to the jobs waiting.
    private mutating func compactIfMostlyStale() {
        guard heap.count > 2 * waiting.count + 32 else { return }
        heap = waiting.map { Slot(priority: $0.value.priority, arrival: $0.value.arrival, id: $0.key) }
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(from: index)
        }
    }

    private mutating func push(_ slot: Slot) {
        heap.append(slot)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func removeTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(from: 0)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var best = left
            if left + 1 < heap.count, heap[left + 1].precedes(heap[left]) { best = left + 1 }
            guard heap[best].precedes(heap[parent]) else { return }
            heap.swapAt(best, parent)
            parent = best
        }
    }
}
