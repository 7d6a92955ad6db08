import Foundation
import Logging

/// File-system faults, logged once per cause.
extension DiskCache {
    /// What went wrong, at the level a log reader acts on: the operation and the `errno`.
    struct FaultCause: Hashable {
        var operation: String
        var code: Int32
    }

    /// Logs a store's failure the first time its cause occurs; later ones are silent.
    func logOnce(_ error: Error) {
        switch error {
        case .cannotWriteEntry(_, let code): logFault(FaultCause(operation: "write", code: code), error.description)
        case .cannotCreateDirectory(_, let code): logFault(FaultCause(operation: "mkdir", code: code), error.description)
        case .entryTooLarge: break
        }
    }

    /// Logs `message` unless a fault with the same cause was logged before.
    func logFault(_ cause: FaultCause, _ message: @autoclosure () -> String) {
        guard loggedFaults.withLock({ $0.insert(cause).inserted }) else { return }
        configuration.logger.warning("\(message()) Further failures of this kind are not logged.")
    }
}
