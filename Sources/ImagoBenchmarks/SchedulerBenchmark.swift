import Foundation
import Imago
import ImagoTestSupport
import Synchronization

/// Target 10: the download queue with 1,000 and with 100,000 jobs waiting behind one running job,
/// through `Scheduler` (package access): enqueueing every job (a task calling `run`, parked until a
/// slot frees), moving every waiting job to another priority (`Ticket.updatePriority`), and
/// starting them all one after another as each finishes. Reported in µs per job at 100k beside
/// the same at 1k; O(log n) operations give a ratio near log(100k)/log(1k) = 1.67, linear ones
/// near 100. Enqueue and start include a task's creation and resumption, the same at both sizes.
enum SchedulerBenchmark {
    static func run(_ context: BenchmarkContext) async throws -> [Figure] {
        let (small, large) = context.quick ? (100, 1_000) : (1_000, 100_000)
        var samples: [Int: [(Double, Double, Double)]] = [:]
        let contenders: [() async throws -> Double] = [small, large].map { size in
            {
                let result = try await measure(size)
                samples[size, default: []].append(result)
                return result.0
            }
        }
        for contender in contenders { _ = try await contender() }  // warm up
        samples.removeAll()
        _ = try await Interleaved(repetitions: context.repetitions).run(contenders)
        let logRatio = log2(Double(large)) / log2(Double(small))
        let operations: [(String, KeyPath<Measurement, Double>)] = [
            ("enqueue (task parks in the queue)", \.enqueue), ("reprioritise (Ticket.updatePriority)", \.reprioritise),
            ("start (each finish starts the next)", \.start),
        ]
        let measured = samples.mapValues { $0.map { Measurement(enqueue: $0.0, reprioritise: $0.1, start: $0.2) } }
        return operations.map { name, path in
            let ours = median(measured[large, default: []].map { $0[keyPath: path] })
            let baseline = median(measured[small, default: []].map { $0[keyPath: path] })
            return Figure(
                benchmark: "scheduler", name: "Scheduler, \(large) waiting: \(name)", unit: "µs/job",
                higherIsBetter: false, ours: ours, baselineName: "the same with \(small) waiting", baseline: baseline,
                extra: [("O(log n) ratio", logRatio), ("O(n) ratio", Double(large) / Double(small))],
                repetitions: context.repetitions)
        }
    }

    /// What the jobs leave behind: their tickets, and how many ran.
    final class Tally: Sendable {
        let tickets: Locked<[Scheduler.Ticket?]>
        let finished = Atomic<Int>(0)

        init(count: Int) { tickets = Locked(Array(repeating: nil, count: count)) }
    }

    struct Measurement {
        var enqueue: Double
        var reprioritise: Double
        var start: Double
    }

    /// µs per job for enqueueing, reprioritising and starting `count` jobs behind one running job.
    static func measure(_ count: Int) async throws -> (Double, Double, Double) {
        let scheduler = Scheduler(maximumConcurrent: 1)
        let url = URL(string: "http://127.0.0.1/scheduler")!
        let (gate, opener) = AsyncStream<Void>.makeStream()
        let blocker = Task {
            try await scheduler.run(priority: .veryHigh, cancellation: .cancelled(url)) {
                () async throws(ImagePipeline.Error) -> Void in
                for await _ in gate {}
            }
        }
        while scheduler.activeCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
        var random = SplitMix(seed: UInt64(count))
        let priorities = (0..<count).map { _ in ImageRequest.Priority.allCases.randomElement(using: &random) ?? .normal }
        let tally = Tally(count: count)
        var enqueue = 0.0
        var reprioritise = 0.0
        var start = 0.0
        // Unstructured tasks, not a task group: the Concurrency runtime finds a finished child of a
        // group by walking the parent's list of children, so 100k children in one group cost
        // O(n²) in the runtime itself, which would be timed here as the scheduler's.
        let began = ContinuousClock.now
        let jobs = (0..<count).map { index in
            let priority = priorities[index]
            return Task {
                try await scheduler.run(
                    priority: priority, cancellation: .cancelled(url),
                    onTicket: { ticket in tally.tickets.withLock { $0[index] = ticket } }
                ) { () async throws(ImagePipeline.Error) -> Void in
                    tally.finished.add(1, ordering: .relaxed)
                }
            }
        }
        while scheduler.queuedCount < count { try await Task.sleep(for: .microseconds(200)) }
        enqueue = (ContinuousClock.now - began).seconds
        let held = tally.tickets.withLock { $0 }.compactMap { $0 }
        precondition(held.count == count)
        let moved = ContinuousClock.now
        for (index, ticket) in held.enumerated() {
            let current = priorities[index].rawValue
            ticket.updatePriority(ImageRequest.Priority(rawValue: (current + 1 + index % 4) % 5) ?? .normal)
        }
        reprioritise = (ContinuousClock.now - moved).seconds
        let released = ContinuousClock.now
        opener.finish()
        for job in jobs { try await job.value }
        start = (ContinuousClock.now - released).seconds
        try await blocker.value
        precondition(tally.finished.load(ordering: .relaxed) == count)
        let perJob = 1e6 / Double(count)
        return (enqueue * perJob, reprioritise * perJob, start * perJob)
    }
}
