#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value that one thread at a time reads or changes, behind a `pthread_mutex_t`: the one lock of
/// Imago, its tests and its tools.
///
/// Why not `Synchronization.Mutex`: on Linux it locks through futex system calls that
/// ThreadSanitizer does not intercept, so TSan cannot see the order a contended hand-over creates and
/// reports races that are not there; suppressing those reports would hide real races of the same
/// types. TSan intercepts `pthread_mutex_lock` and `pthread_mutex_unlock`, so every access through
/// ``withLock(_:)`` is ordered as it truly is. On Linux it is also cheaper uncontended: `Mutex` makes a
/// `gettid` system call on every lock and unlock.
///
/// The value and the mutex share one allocation. Copies share them too, so escaping closures can
/// capture a `Locked` (a `Mutex` cannot be captured). Never hold it across an `await` or around heavy
/// work.
///
/// The value must not be empty (`Void`, a struct without stored properties): TSan (Swift 6.3.1)
/// takes an `inout` access of an empty value for an access at the object's first byte, which
/// every thread reads unlocked to find the value, and reports a race that is not there. Hold a
/// count or a flag instead.
@usableFromInline
package struct Locked<Value>: @unchecked Sendable {
    @usableFromInline let storage: Storage

    package init(_ value: Value) {
        assert(MemoryLayout<Value>.size > 0, "Locked<\(Value.self)>: an empty value confuses ThreadSanitizer; hold a count or a flag")
        storage = Storage.make(value)
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    @inlinable
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withLock(body)
    }
}

extension Locked {
    /// The value (the buffer's header) and its mutex (the one element), in one object.
    @usableFromInline
    final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        static func make(_ value: Value) -> Storage {
            let buffer = Storage.create(minimumCapacity: 1) { _ in value }
            buffer.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                let result = pthread_mutex_init(mutex, nil)
                precondition(result == 0, "pthread_mutex_init failed with \(result)")
            }
            // `create` returns the dynamic type it was called on.
            return unsafeDowncast(buffer, to: Storage.self)
        }

        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }

        @inlinable
        func withLock<Result, Failure: Error>(
            _ body: (inout Value) throws(Failure) -> Result
        ) throws(Failure) -> Result {
            // The pointers stay valid while `self` is alive, which this call guarantees.
            let (value, mutex) = withUnsafeMutablePointers { ($0, $1) }
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}
