import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Says whether the network is reachable, so a request can wait for it instead of failing at once.
///
/// On Apple platforms the default follows `NWPathMonitor`, except on watchOS, where an ordinary
/// app's monitor stays unsatisfied (Apple's TN3135, "Low-level networking on watchOS"), so there
/// it is ``alwaysReachable`` and URLSession reports a missing network itself. On Linux it looks at
/// the host's network interfaces (one that is up, running, not loopback, with an address). Tests
/// and apps with their own knowledge inject a check.
public struct Connectivity: Sendable {
    private let check: @Sendable () async -> Bool

    /// A connectivity that asks `isReachable`.
    public init(isReachable: @escaping @Sendable () async -> Bool) {
        self.check = isReachable
    }

    /// Whether the network is reachable now.
    public func isReachable() async -> Bool { await check() }

    /// Always reachable: requests never wait for the network.
    public static let alwaysReachable = Connectivity { true }

    /// The platform's own view of the network: `NWPathMonitor` on macOS, iOS, tvOS and visionOS,
    /// the host's interfaces on Linux, ``alwaysReachable`` on watchOS (see above).
    public static let system: Connectivity = {
        #if os(watchOS)
        return .alwaysReachable
        #elseif canImport(Network)
        let monitor = PathMonitor()
        return Connectivity { monitor.isSatisfied }
        #elseif os(Linux)
        return Connectivity { NetworkInterfaces.hasRoutableInterface() }
        #else
        return .alwaysReachable
        #endif
    }()

    /// Waits until the network is reachable, checking every `interval`, for at most `limit`.
    /// Returns whether it became reachable.
    public func waitUntilReachable(
        for limit: Duration, interval: Duration = .milliseconds(250), clock: any Clock<Duration> = ContinuousClock()
    ) async -> Bool {
        var waited = Duration.zero
        while true {
            if await isReachable() { return true }
            if waited >= limit || Task.isCancelled { return false }
            let step = min(interval, limit - waited)
            do {
                try await clock.sleep(for: step, tolerance: nil)
            } catch {
                return false
            }
            waited += step
        }
    }
}

#if os(Linux)
/// The host's interfaces, read with getifaddrs.
enum NetworkInterfaces {
    /// Whether an interface other than loopback is up, running and has an IPv4 or IPv6 address.
    static func hasRoutableInterface() -> Bool {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0, let first else { return false }
        defer { freeifaddrs(first) }
        var current: UnsafeMutablePointer<ifaddrs>? = first
        while let interface = current {
            defer { current = interface.pointee.ifa_next }
            let flags = Int32(interface.pointee.ifa_flags)
            let isUsable = flags & Int32(IFF_UP) != 0 && flags & Int32(IFF_RUNNING) != 0
                && flags & Int32(IFF_LOOPBACK) == 0
            guard isUsable, let address = interface.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            if family == AF_INET || family == AF_INET6 { return true }
        }
        return false
    }
}
#endif
