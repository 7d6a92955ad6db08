import Foundation
import NIOCore
import NIOHTTP1

extension TestServer {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    typealias Writer = NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>

    /// Accepts connections until the listener closes, serving each in its own child task.
    func accept(from listener: NIOAsyncChannel<Connection, Never>) async {
        try? await listener.executeThenClose { connections in
            try await withThrowingDiscardingTaskGroup { group in
                for try await connection in connections {
                    group.addTask { await self.serve(connection) }
                }
            }
        }
    }

    /// Answers the requests of one connection in order until the client or a behavior closes it.
    private func serve(_ connection: Connection) async {
        let channel = connection.channel
        guard state.withLock({ $0.open(channel) }) else {
            try? await channel.close()
            return
        }
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            for try await part in inbound {
                switch part {
                case .head(let received):
                    head = received
                case .body:
                    break
                case .end:
                    guard let received = head else { continue }
                    head = nil
                    let request = Self.record(received)
                    let (behavior, resource) = state.withLock { $0.begin(request) }
                    let keepOpen: Bool
                    do {
                        keepOpen = try await respond(to: request, as: behavior, resource: resource, with: outbound)
                    } catch {
                        state.withLock { $0.end() }
                        throw error
                    }
                    state.withLock { $0.end() }
                    guard keepOpen, received.isKeepAlive else { return }
                }
            }
        }
        state.withLock { $0.close(channel) }
    }

    private static func record(_ head: HTTPRequestHead) -> RecordedRequest {
        var headers: [String: String] = [:]
        for (name, value) in head.headers {
            headers[name.lowercased(), default: ""].append(headers[name.lowercased()] == nil ? value : ", " + value)
        }
        return RecordedRequest(
            method: head.method.rawValue, path: normalized(head.uri), target: head.uri, headers: headers)
    }

    /// Writes the answer `behavior` calls for. Returns false when the connection must close.
    private func respond(
        to request: RecordedRequest, as behavior: Behavior, resource: Resource?, with writer: Writer
    ) async throws -> Bool {
        let isHead = request.method == "HEAD"
        switch behavior {
        case .normal, .headers, .delay:
            if case .delay(let delay) = behavior { try await Task.sleep(for: delay) }
            guard let resource else {
                try await writeNotFound(request, with: writer)
                return true
            }
            if resource.isNotModified(for: request) {
                try await write(304, headers: validators(of: resource), body: nil, with: writer)
                return true
            }
            var headers = headers(of: resource)
            if case .headers(let extra) = behavior { headers.merge(extra) { $1 } }
            try await write(200, headers: headers, body: isHead ? nil : resource.data, length: resource.data.count, with: writer)
            return true

        case .status(let status, let body, let extra):
            try await write(status, headers: extra, body: isHead ? nil : body, length: body.count, with: writer)
            return true

        case .html:
            let page = Data("<!doctype html><html><body><h1>Oops</h1><p>This is not an image.</p></body></html>".utf8)
            try await write(200, headers: ["Content-Type": "text/html; charset=utf-8"], body: page, length: page.count, with: writer)
            return true

        case .truncated(let sendBytes):
            guard let resource else { return try await notFound(request, with: writer) }
            try await writeHead(200, headers: headers(of: resource), length: resource.data.count, with: writer)
            try await writer.write(.body(.byteBuffer(ByteBuffer(bytes: resource.data.prefix(sendBytes)))))
            return false

        case .wrongContentLength(let declared):
            guard let resource else { return try await notFound(request, with: writer) }
            try await writeHead(200, headers: headers(of: resource), length: declared, with: writer)
            try await writer.write(.body(.byteBuffer(ByteBuffer(bytes: resource.data))))
            return false

        case .chunked(let chunkSize):
            guard let resource else { return try await notFound(request, with: writer) }
            try await writeHead(200, headers: headers(of: resource), length: nil, with: writer)
            try await writeBody(resource.data, inPiecesOf: chunkSize, pausing: nil, with: writer)
            return true

        case .endless(let chunkSize):
            try await writeHead(200, headers: ["Content-Type": "application/octet-stream"], length: nil, with: writer)
            let chunk = ByteBuffer(repeating: 0x55, count: max(1, chunkSize))
            while !Task.isCancelled {
                try await writer.write(.body(.byteBuffer(chunk)))
            }
            return false

        case .trickle(let bytesPerInterval, let interval):
            guard let resource else { return try await notFound(request, with: writer) }
            try await writeHead(200, headers: headers(of: resource), length: resource.data.count, with: writer)
            try await writeBody(resource.data, inPiecesOf: bytesPerInterval, pausing: interval, with: writer)
            return true

        case .dropConnection:
            return false

        case .sequence:
            preconditionFailure("State.begin resolves sequences")
        }
    }

    private func headers(of resource: Resource) -> [String: String] {
        var headers = validators(of: resource)
        headers["Content-Type"] = resource.contentType
        headers.merge(resource.headers) { $1 }
        return headers
    }

    private func validators(of resource: Resource) -> [String: String] {
        var headers: [String: String] = [:]
        headers["ETag"] = resource.etag
        headers["Last-Modified"] = resource.lastModified
        return headers
    }

    private func notFound(_ request: RecordedRequest, with writer: Writer) async throws -> Bool {
        try await writeNotFound(request, with: writer)
        return true
    }

    private func writeNotFound(_ request: RecordedRequest, with writer: Writer) async throws {
        let body = Data("Nothing is registered at \(request.path).\n".utf8)
        try await write(404, headers: ["Content-Type": "text/plain; charset=utf-8"], body: body, length: body.count, with: writer)
    }

    /// Writes a whole response. `length` is declared as `Content-Length` (also for HEAD, where
    /// `body` is nil).
    private func write(
        _ status: Int, headers: [String: String], body: Data?, length: Int? = 0, with writer: Writer
    ) async throws {
        try await writeHead(status, headers: headers, length: length, with: writer)
        if let body, !body.isEmpty {
            try await writer.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
        }
        try await writer.write(.end(nil))
    }

    /// Writes `data` as separate body parts of `size` bytes, waiting `pause` between them, then
    /// ends the response.
    private func writeBody(_ data: Data, inPiecesOf size: Int, pausing pause: Duration?, with writer: Writer) async throws {
        var offset = data.startIndex
        while offset < data.endIndex {
            let end = min(offset + max(1, size), data.endIndex)
            try await writer.write(.body(.byteBuffer(ByteBuffer(bytes: data[offset..<end]))))
            offset = end
            if let pause, offset < data.endIndex { try await Task.sleep(for: pause) }
        }
        try await writer.write(.end(nil))
    }

    /// Writes the status line and headers; a nil `length` makes the body chunked.
    private func writeHead(_ status: Int, headers: [String: String], length: Int?, with writer: Writer) async throws {
        var fields = HTTPHeaders(headers.map { ($0.key, $0.value) })
        if let length, status != 304, status != 204 {
            fields.replaceOrAdd(name: "Content-Length", value: String(length))
        }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: fields)
        try await writer.write(.head(head))
    }
}
