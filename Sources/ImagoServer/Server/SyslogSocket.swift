#if os(Linux)
import Glibc

/// One connected socket to a ``SyslogDestination``, with blocking calls bounded by ``timeout``:
/// only ``SyslogWriter``'s own queue uses it, never a request.
struct SyslogSocket {
    /// A connection or a send that failed, with the system's reason.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Seconds a connect or a send may block (on Linux `SO_SNDTIMEO` bounds a stream's connect
    /// too): a syslog server that stops reading costs the writer's queue this much per message,
    /// while new messages past its bound are dropped.
    static let timeout = 1

    let descriptor: Int32
    /// A stream (TCP, `unix`): a message is written whole across partial sends.
    let isStream: Bool
    /// The local daemon's socket, which Go's `log/syslog` writes without the host name.
    let isLocal: Bool

    /// A socket connected to `destination`.
    /// - Throws: ``Failure`` saying what refused the connection.
    static func connect(to destination: SyslogDestination) throws(Failure) -> SyslogSocket {
        guard let network = destination.network else {
            // Go's order: each path as a datagram socket, then each as a stream.
            for isStream in [false, true] {
                for path in destination.localSockets {
                    if let descriptor = try? unixSocket(path, isStream: isStream) {
                        return SyslogSocket(descriptor: descriptor, isStream: isStream, isLocal: true)
                    }
                }
            }
            throw Failure(description: "no syslog daemon listens at \(destination.localSockets.joined(separator: ", "))")
        }
        if network.isUnix {
            return SyslogSocket(descriptor: try unixSocket(destination.address, isStream: network.isStream), isStream: network.isStream, isLocal: false)
        }
        return SyslogSocket(descriptor: try ipSocket(destination.address, network: network), isStream: network.isStream, isLocal: false)
    }

    /// Sends `bytes` whole: a datagram at once, a stream across partial sends. Never raises
    /// SIGPIPE when a stream's peer has gone (the send fails instead).
    func send(_ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw Self.failure("send")
            }
            guard isStream else { return }
            offset += sent
        }
    }

    func close() {
        _ = Glibc.close(descriptor)
    }

    private static func unixSocket(_ path: String, isStream: Bool) throws(Failure) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw Failure(description: "\(path): a Unix socket's path takes 1 to 107 bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let descriptor = try socket(AF_UNIX, isStream: isStream)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard status == 0 else {
            let failure = Self.failure("connect to \(path)")
            _ = Glibc.close(descriptor)
            throw failure
        }
        return descriptor
    }

    private static func ipSocket(_ address: String, network: SyslogDestination.Network) throws(Failure) -> Int32 {
        guard let (host, port) = SyslogDestination.hostAndPort(address) else {
            throw Failure(description: "\(address) is not HOST:PORT")
        }
        var hints = addrinfo()
        hints.ai_family = network == .udp4 || network == .tcp4 ? AF_INET : network == .udp6 || network == .tcp6 ? AF_INET6 : AF_UNSPEC
        hints.ai_socktype = Int32((network.isStream ? SOCK_STREAM : SOCK_DGRAM).rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, port, &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(description: "\(address) does not resolve: \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var failure = Failure(description: "\(address) has no address")
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            guard let descriptor = try? socket(current.pointee.ai_family, isStream: network.isStream) else { continue }
            if Glibc.connect(descriptor, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 { return descriptor }
            failure = Self.failure("connect to \(address)")
            _ = Glibc.close(descriptor)
        }
        throw failure
    }

    /// A socket of `family` whose sends (and stream connects) give up after ``timeout``.
    private static func socket(_ family: Int32, isStream: Bool) throws(Failure) -> Int32 {
        let kind = Int32((isStream ? SOCK_STREAM : SOCK_DGRAM).rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = Glibc.socket(family, kind, 0)
        guard descriptor >= 0 else { throw failure("socket") }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    private static func failure(_ call: String) -> Failure {
        Failure(description: "\(call): \(String(cString: strerror(errno)))")
    }
}
#endif
