// Raw sockets for the tests that misbehave on purpose, where those tests run (Linux).
#if canImport(Glibc)
import Glibc

/// A plain blocking TCP socket connected to 127.0.0.1, for tests that speak HTTP byte by byte
/// (half-sent heads, responses left unread) where a real client would not.
public enum LoopbackSocket {
    /// A call failed: which, and its `errno`.
    public struct Failure: Error, CustomStringConvertible {
        public let call: String
        public let code: Int32

        public var description: String { "\(call): \(String(cString: strerror(code)))" }
    }

    /// A socket connected to 127.0.0.1:`port` (connecting blocks; loopback answers at once).
    /// `configure` is given the socket before it connects, for options such as buffer sizes or
    /// time-outs. The caller closes it.
    public static func connect(port: Int, configure: (Int32) -> Void = { _ in }) throws(Failure) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(call: "socket", code: errno) }
        configure(descriptor)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(call: "connect", code: code)
        }
        return descriptor
    }
}
#endif
