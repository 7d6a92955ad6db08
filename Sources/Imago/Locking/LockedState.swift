#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
    import os
#endif

/// State behind a lock whose uncontended lock and unlock are one atomic instruction each: for the
/// hot paths (a memory-cache hit, a disk-cache hit's index update, joining in-flight work).
///
/// Why not `Synchronization.Mutex` there: on Linux its `lock` and `unlock` each ask the kernel for
/// the thread's id (`gettid`, a system call) before the atomic exchange, so a lookup that takes the
/// lock once pays two system calls, several times the cost of the lookup itself (`imago-bench
/// --filter memory-cache` shows both). This lock is `pthread_mutex_t` on Linux and
/// `os_unfair_lock` on Apple platforms, both of which ThreadSanitizer understands. Elsewhere
/// `Mutex` stays the house lock.
///
/// The lock and the state live in memory of their own that never moves, as both locks require;
/// the state is reached through a pointer, so a `withLock` body pays no dynamic exclusivity check.
@usableFromInline
final class LockedState<State> {
    #if canImport(Darwin)
        @usableFromInline typealias Primitive = os_unfair_lock_s
    #else
        @usableFromInline typealias Primitive = pthread_mutex_t
    #endif

    @usableFromInline let primitive: UnsafeMutablePointer<Primitive>
    @usableFromInline let state: UnsafeMutablePointer<State>

    @usableFromInline
    init(_ initial: State) {
        primitive = .allocate(capacity: 1)
        #if canImport(Darwin)
            primitive.initialize(to: os_unfair_lock_s())
        #else
            primitive.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(primitive, nil)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
        #endif
        state = .allocate(capacity: 1)
        state.initialize(to: initial)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
        #if !canImport(Darwin)
            pthread_mutex_destroy(primitive)
        #endif
        primitive.deinitialize(count: 1)
        primitive.deallocate()
    }

    /// Runs `body` with the state while holding the lock; `body` must not call back into this lock.
    @inlinable
    func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        #if canImport(Darwin)
            os_unfair_lock_lock(primitive)
            defer { os_unfair_lock_unlock(primitive) }
        #else
            pthread_mutex_lock(primitive)
            defer { pthread_mutex_unlock(primitive) }
        #endif
        return try body(&state.pointee)
    }
}

/// Safe to share when the state is: it is only ever touched with the lock held.
extension LockedState: @unchecked Sendable where State: Sendable {}
