@testable import Imago

extension Locked {
    /// A copy of the value, read under the lock: for a test's expectations after the work is done.
    var value: Value { withLock { $0 } }
}
