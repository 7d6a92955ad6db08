/// The download queue as a value: which jobs run, which wait, and who starts next.
///
/// At most `maximumConcurrent` jobs run at once. Waiting jobs start in priority order, and in
/// arrival order within a priority. Each method returns the jobs its change lets start, so the
/// owner resumes them outside any lock and the rules are tested without timing.
struct SchedulerQueue: Sendable {
    typealias ID = UInt64

    /// How many jobs may run at once.
    var maximumConcurrent: Int
    private(set) var running: Set<ID> = []
    private var waiting: [ID: (priority: ImageRequest.Priority, arrival: UInt64)] = [:]
    private var arrivals: UInt64 = 0

    init(maximumConcurrent: Int) {
        precondition(maximumConcurrent >= 1, "A scheduler needs at least one slot")
        self.maximumConcurrent = maximumConcurrent
    }

    /// Jobs waiting for a slot.
    var waitingCount: Int { waiting.count }

    /// A job asks for a slot: returns the jobs that may start now, this one among them when a
    /// slot was free and nothing better waits.
    mutating func enqueue(_ id: ID, priority: ImageRequest.Priority) -> [ID] {
        arrivals += 1
        waiting[id] = (priority, arrivals)
        return startable()
    }

    /// A running job ended: returns the waiting jobs that may start now.
    mutating func finish(_ id: ID) -> [ID] {
        running.remove(id)
        return startable()
    }

    /// A job gave up (its caller cancelled), running or waiting: returns jobs that may start now.
    mutating func cancel(_ id: ID) -> [ID] {
        if waiting.removeValue(forKey: id) != nil { return [] }
        return finish(id)
    }

    /// Moves a waiting job to another priority (no effect on a running one).
    mutating func updatePriority(_ id: ID, to priority: ImageRequest.Priority) {
        waiting[id]?.priority = priority
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
        while running.count < maximumConcurrent, let next = nextWaiting() {
            waiting[next] = nil
            running.insert(next)
            started.append(next)
        }
        return started
    }

    private func nextWaiting() -> ID? {
        waiting.min { lhs, rhs in
            lhs.value.priority != rhs.value.priority
                ? lhs.value.priority > rhs.value.priority
                : lhs.value.arrival < rhs.value.arrival
        }?.key
    }
}
