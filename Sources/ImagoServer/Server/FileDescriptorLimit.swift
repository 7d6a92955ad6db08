import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit of open files.
enum FileDescriptorLimit {
    /// Raises the soft limit to the hard one, as Go's runtime does at start: a server holding
    /// thousands of client and source connections needs more than the usual soft 1,024, and the
    /// hard limit is what the operator allowed.
    static func raiseToHardLimit() {
        var limit = rlimit()
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
    }
}
