#if os(Linux)
/// Where `imago serve` sends syslog messages (`IMGPROXY_SYSLOG_NETWORK`, `IMGPROXY_SYSLOG_ADDRESS`):
/// a server over UDP or TCP, a Unix socket, or, with no network set, the local daemon's socket.
///
/// The spellings are Go's `net.Dial` networks, which imgproxy hands to Go's `log/syslog`; the
/// local daemon is found as `log/syslog` finds it: the first of ``standardLocalSockets`` that
/// accepts a datagram connection, else the first that accepts a stream one.
package struct SyslogDestination: Sendable, Equatable, CustomStringConvertible {
    /// `IMGPROXY_SYSLOG_NETWORK`'s values: IP (any family, or 4 or 6 only) and Unix sockets.
    package enum Network: String, Sendable, CaseIterable {
        case udp, udp4, udp6, tcp, tcp4, tcp6, unix, unixgram

        /// Whether the socket is a stream, whose messages are framed by their closing newline.
        var isStream: Bool { self == .tcp || self == .tcp4 || self == .tcp6 || self == .unix }
        /// Whether the address is a file path, not `host:port`.
        var isUnix: Bool { self == .unix || self == .unixgram }
    }

    /// Where Go's `log/syslog` looks for the local daemon, in order.
    package static let standardLocalSockets = ["/dev/log", "/var/run/syslog", "/var/run/log"]

    /// The network; `nil` for the local daemon.
    package var network: Network?
    /// A socket's path, or `host:port` (`[::1]:514` for an IPv6 address; a port may be a service
    /// name such as `syslog`); empty for the local daemon.
    package var address: String
    /// The local daemon's socket paths tried, in order (``standardLocalSockets``; tests name a
    /// socket of their own).
    package var localSockets: [String] = SyslogDestination.standardLocalSockets

    /// The local daemon, at the first of `sockets` that accepts a connection.
    package static func local(sockets: [String] = standardLocalSockets) -> SyslogDestination {
        SyslogDestination(network: nil, address: "", localSockets: sockets)
    }

    /// A server or socket at `address` over `network`.
    package init(network: Network, address: String) {
        self.network = network
        self.address = address
    }

    private init(network: Network?, address: String, localSockets: [String]) {
        self.network = network
        self.address = address
        self.localSockets = localSockets
    }

    /// The destination imgproxy's variables name: `network` unset (`nil`) is the local daemon and
    /// `address` is not read, as in imgproxy.
    /// - Throws: ``ServeEnvironmentError`` naming `IMGPROXY_SYSLOG_NETWORK` for a network Go's
    ///   `net.Dial` does not take, or `IMGPROXY_SYSLOG_ADDRESS` for a network without an address
    ///   or an IP address that is not `host:port`.
    package init(network text: String?, address: String?) throws(ServeEnvironmentError) {
        guard let text else {
            self = .local()
            return
        }
        guard let network = Network(rawValue: text.lowercased()) else {
            throw ServeEnvironmentError(
                variable: "IMGPROXY_SYSLOG_NETWORK",
                message: "takes udp, tcp (or udp4, udp6, tcp4, tcp6), unix or unixgram, or nothing for the local daemon, not \"\(text)\"")
        }
        guard let address else {
            throw ServeEnvironmentError(
                variable: "IMGPROXY_SYSLOG_ADDRESS",
                message: "is needed when IMGPROXY_SYSLOG_NETWORK is \(network.rawValue): \(network.isUnix ? "the socket's path" : "HOST:PORT")")
        }
        if !network.isUnix {
            guard let (host, port) = Self.hostAndPort(address), !host.isEmpty, !port.isEmpty else {
                throw ServeEnvironmentError(
                    variable: "IMGPROXY_SYSLOG_ADDRESS", message: "takes HOST:PORT for \(network.rawValue) (such as 10.0.0.5:514), not \"\(address)\"")
            }
        }
        self.init(network: network, address: address)
    }

    /// `host:port` split at its last colon, the brackets of an IPv6 host taken off; `nil` without
    /// a colon.
    static func hostAndPort(_ address: String) -> (host: String, port: String)? {
        guard let colon = address.lastIndex(of: ":") else { return nil }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, String(address[address.index(after: colon)...]))
    }

    package var description: String {
        network.map { "\($0.rawValue) \(address)" } ?? "the local daemon (\(localSockets.joined(separator: ", ")))"
    }
}
#endif
