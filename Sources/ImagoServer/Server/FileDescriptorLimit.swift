#if os(Linux)
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit of open files (`RLIMIT_NOFILE`): what `imago serve` raises at start and
/// what ``ImagoServer`` checks its connection cap against.
package enum FileDescriptorLimit {
    /// The soft limit: how many files the process may open now; nil when it cannot be read.
    package static var current: UInt64? { read().map { UInt64($0.rlim_cur) } }

    /// Raises the soft limit to the hard one, as Go's runtime does at start: a server holding
    /// thousands of client and source connections needs more than the usual soft 1,024, and the
    /// hard limit is what the operator allowed.
    package static func raiseToHardLimit() {
        guard var limit = read(), limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
    }

    private static func read() -> rlimit? {
        var limit = rlimit()
        return getrlimit(resource, &limit) == 0 ? limit : nil
    }

    /// Glibc names the resource with its own enum type, Darwin with a plain `Int32`.
    #if os(Linux)
    private static var resource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
    #else
    private static var resource: Int32 { RLIMIT_NOFILE }
    #endif
}
#endif
