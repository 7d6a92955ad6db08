#if os(Linux)
import Foundation
import Glibc

/// A syslog server for tests: a UDP or TCP socket on 127.0.0.1, or a Unix datagram socket at a
/// path, whose reads give up after 10 s (a bound against hanging, not a timed assertion).
final class SyslogListener {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let descriptor: Int32
    /// The bound port (0 for a Unix socket).
    let port: Int
    /// The Unix socket's path, removed when the listener closes.
    let path: String?
    /// The accepted connection of a TCP listener.
    private(set) var connection: Int32 = -1
    private var buffered: [UInt8] = []

    private init(descriptor: Int32, port: Int, path: String?) {
        self.descriptor = descriptor
        self.port = port
        self.path = path
    }

    deinit {
        if connection >= 0 { close(connection) }
        close(descriptor)
        if let path { unlink(path) }
    }

    /// A UDP (or, `stream`, a listening TCP) socket on a free port of 127.0.0.1.
    static func loopback(stream: Bool = false) throws -> SyslogListener {
        let descriptor = socket(AF_INET, Int32((stream ? SOCK_STREAM : SOCK_DGRAM).rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound, !stream || listen(descriptor, 8) == 0 else {
            close(descriptor)
            throw Failure(description: "bind or listen failed")
        }
        setReadTimeout(descriptor)
        return SyslogListener(descriptor: descriptor, port: Int(UInt16(bigEndian: address.sin_port)), path: nil)
    }

    /// A Unix datagram socket bound at `path`.
    static func unixDatagram(at path: String) throws -> SyslogListener {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure(description: "path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
        guard bound else {
            close(descriptor)
            throw Failure(description: "bind \(path) failed")
        }
        setReadTimeout(descriptor)
        return SyslogListener(descriptor: descriptor, port: 0, path: path)
    }

    /// The next datagram, or `nil` after 10 s.
    func datagram() -> String? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return count < 0 ? nil : String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    /// Whether a TCP client is waiting, within `milliseconds`; if so, accepts it (closing the
    /// connection accepted before).
    func accept(within milliseconds: Int32 = 10_000) -> Bool {
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, milliseconds) == 1 else { return false }
        let accepted = Glibc.accept(descriptor, nil, nil)
        guard accepted >= 0 else { return false }
        dropConnection()
        connection = accepted
        Self.setReadTimeout(accepted)
        return true
    }

    /// Closes the accepted connection, as a server that goes away.
    func dropConnection() {
        if connection >= 0 { close(connection) }
        connection = -1
        buffered = []
    }

    /// The next newline-ended line of the accepted connection (with its newline), or `nil` after
    /// 10 s or at its end.
    func line() -> String? {
        while true {
            if let end = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[...end], as: UTF8.self)
                buffered.removeSubrange(...end)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffered += chunk.prefix(count)
        }
    }

    private static func setReadTimeout(_ descriptor: Int32) {
        var limit = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }
}
#endif
