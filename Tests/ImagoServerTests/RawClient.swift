#if os(Linux)
import Foundation
import Glibc
import ImagoTestSupport
import Synchronization

/// A client on a bare loopback TCP socket, for clients that misbehave on purpose: half-sent
/// heads, silence, reading a byte at a time or not at all. Connecting blocks (loopback answers
/// at once); sending and reading never wait.
///
/// Its descriptor is closed once only (by ``close()`` or when the client goes), and never used
/// after: in a process whose other threads open sockets all the time, a second close or a late
/// read could hit a descriptor number that now belongs to someone else (a NIO channel, which
/// then traps on `EBADF`).
final class RawClient: Sendable {
    enum Failure: Error, CustomStringConvertible {
        case call(String, Int32)

        var description: String {
            switch self {
            case .call(let name, let code): "\(name): \(String(cString: strerror(code)))"
            }
        }
    }

    /// What a read found.
    enum Read: Equatable {
        /// This many bytes (discarded).
        case bytes(Int)
        /// Nothing yet; the connection is open.
        case nothing
        /// The server closed the connection (end of stream or reset).
        case closed
    }

    let descriptor: Int32
    private let closed = Atomic(false)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Connects to 127.0.0.1:`port`; `receiveBuffer` shrinks the socket's receive buffer first
    /// (so a client that stops reading stops the server's writes sooner).
    static func connect(port: Int, receiveBuffer: Int32? = nil) throws -> RawClient {
        let descriptor = try LoopbackSocket.connect(port: port) { socket in
            if var size = receiveBuffer {
                setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
        }
        return RawClient(descriptor: descriptor)
    }

    /// Sends `text` (all of it: these are a few bytes on loopback).
    func send(_ text: String) throws {
        guard !isClosed else { throw Failure.call("send", EBADF) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure.call("send", errno) }
            offset += sent
        }
    }

    /// Reads what has arrived, up to `limit` bytes, without waiting.
    func read(upTo limit: Int = 64 * 1024) -> Read {
        guard !isClosed else { return .closed }
        var buffer = [UInt8](repeating: 0, count: max(1, limit))
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count > 0 { return .bytes(count) }
        if count == 0 { return .closed }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .nothing : .closed
    }

    /// Reads what has arrived, up to `limit` bytes, as text (a response head), without waiting.
    func readText(upTo limit: Int = 64 * 1024) -> String? {
        guard !isClosed else { return nil }
        var buffer = [UInt8](repeating: 0, count: max(1, limit))
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    /// Reads one response whole, for at most `limit`: its head (with the body after it when
    /// `keepingBody`; otherwise the body is discarded as it arrives, so a large one is never
    /// held) and the length of its body; `nil` if it did not arrive whole (bodies are framed by
    /// `Content-Length` here).
    func readResponse(within limit: Duration, keepingBody: Bool = false) async -> (head: String, bodyLength: Int)? {
        let deadline = ContinuousClock.now + limit
        var head = [UInt8]()
        var body = 0
        var expected: Int?
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while ContinuousClock.now < deadline, !isClosed {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { return nil }
            if count < 0 {
                try? await Task.sleep(for: .milliseconds(5))
                continue
            }
            let bytes = buffer.prefix(count)
            if expected == nil || keepingBody { head += bytes }
            if expected == nil {
                guard let end = head.firstRange(of: Array("\r\n\r\n".utf8)) else { continue }
                let text = String(decoding: head[..<end.upperBound], as: UTF8.self)
                let length = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                guard let length else { return nil }
                expected = length
                body = head.count - end.upperBound
                if !keepingBody { head = Array(head[..<end.upperBound]) }
            } else {
                body += bytes.count
            }
            if let expected, body >= expected { return (String(decoding: head, as: UTF8.self), body) }
        }
        return nil
    }

    /// Whether the server has closed the connection, draining (and discarding) what it sent.
    func isClosedByServer() -> Bool {
        while true {
            switch read() {
            case .bytes: continue
            case .nothing: return false
            case .closed: return true
            }
        }
    }

    /// Waits, polling every 20 ms, until the server closes the connection or `limit` passes;
    /// returns whether it closed.
    func waitUntilClosed(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if isClosedByServer() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return isClosedByServer()
    }

    /// Closes the socket, once.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Glibc.close(descriptor)
    }
}
#endif
