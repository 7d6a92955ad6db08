#if os(Linux) || os(macOS)  // the loopback server: where test suites run (see Package.swift)
import Foundation
import NIOCore
import NIOHTTP1

extension TestServer {
    /// Writes the responses of one connection.
    ///
    /// Every body part waits until the event loop has taken it: the async writer only pushes back
    /// once the channel reports it is full, and a loop that writes faster than that (an endless
    /// body to a fast reader) would otherwise flood the event loop and starve every other
    /// connection sharing it.
    struct ResponseWriter {
        let outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
        let channel: any Channel
        /// Told how many body bytes each write sent (``TestServer/bodyBytesSent(for:)``).
        let countBody: @Sendable (Int) -> Void

        /// Writes the status line and headers; a nil `length` makes the body chunked.
        func head(_ status: Int, headers: [String: String], length: Int?) async throws {
            var fields = HTTPHeaders(headers.map { ($0.key, $0.value) })
            if let length, status != 304, status != 204 {
                fields.replaceOrAdd(name: "Content-Length", value: String(length))
            }
            let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: fields)
            try await outbound.write(.head(head))
        }

        /// Writes one body part.
        func body(_ bytes: some Sequence<UInt8>) async throws {
            try await body(ByteBuffer(bytes: bytes))
        }

        func body(_ buffer: ByteBuffer) async throws {
            try await outbound.write(.body(.byteBuffer(buffer)))
            countBody(buffer.readableBytes)
            try await channel.eventLoop.submit {}.get()
        }

        /// Writes `bytes` straight to the socket, past the HTTP encoder, and waits until they are sent.
        func raw(_ bytes: Data) async throws {
            let buffer = ByteBuffer(bytes: bytes)
            try await channel.eventLoop.flatSubmit { [channel] in
                let promise = channel.eventLoop.makePromise(of: Void.self)
                do {
                    let encoder = try channel.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
                    encoder.writeAndFlush(NIOAny(buffer), promise: promise)
                } catch {
                    promise.fail(error)
                }
                return promise.futureResult
            }.get()
        }

        func end() async throws {
            try await outbound.write(.end(nil))
        }

        /// Writes a whole response; `length` is declared as `Content-Length` even when `body` is
        /// nil (as for HEAD).
        func response(_ status: Int, headers: [String: String], body: Data?, length: Int? = 0) async throws {
            try await head(status, headers: headers, length: length)
            if let body, !body.isEmpty { try await self.body(body) }
            try await end()
        }

        /// Writes `data` in parts of `size` bytes, waiting `pause` between them, then ends the
        /// response.
        func pieces(of data: Data, size: Int, pause: Duration?) async throws {
            var offset = data.startIndex
            while offset < data.endIndex {
                let end = min(offset + max(1, size), data.endIndex)
                try await body(data[offset..<end])
                offset = end
                if let pause, offset < data.endIndex { try await Task.sleep(for: pause) }
            }
            try await end()
        }
    }
}
#endif
