#if os(Linux) || os(macOS)  // the loopback server: where test suites run (see Package.swift)
import Foundation
import Imago
import NIOCore
import NIOHTTP1

extension TestServer {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

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
        guard handoff.take(connection) else { return }  // shutdown has ended it
        guard state.withLock({ $0.open(channel) }) else {
            // Shutting down: close at once, through executeThenClose, which also finishes the
            // outbound writer (a writer dropped unfinished is a precondition failure in NIO).
            try? await connection.executeThenClose { _, _ in }
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
                    defer { state.withLock { $0.end() } }
                    let writer = ResponseWriter(outbound: outbound, channel: channel) { [self] count in
                        state.withLock { $0.bodyBytesSent[request.path, default: 0] += count }
                    }
                    let keepOpen = try await respond(to: request, as: behavior, resource: resource, with: writer)
                    guard keepOpen, received.isKeepAlive else { return }
                }
            }
        }
        state.withLock { $0.close(channel) }
    }

    private static func record(_ head: HTTPRequestHead) -> RecordedRequest {
        var headers: [String: String] = [:]
        for (name, value) in head.headers {
            let name = name.lowercased()
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return RecordedRequest(
            method: head.method.rawValue, path: normalized(head.uri), target: head.uri, headers: headers)
    }

    /// Writes the answer `behavior` calls for. Returns false when the connection must close.
    private func respond(
        to request: RecordedRequest, as behavior: Behavior, resource: Resource?, with writer: ResponseWriter
    ) async throws -> Bool {
        let isHead = request.method == "HEAD"
        switch behavior {
        case .normal, .headers, .delay, .held, .ignoresRange, .wrongContentRange, .ignoresIfRange, .ignoresIfRangeWithoutValidators:
            if case .delay(let delay) = behavior { try await Task.sleep(for: delay) }
            if case .held = behavior { await waitForRelease(of: request.path) }
            guard let resource else {
                try await writeNotFound(request, with: writer)
                return true
            }
            if resource.isNotModified(for: request) {
                try await writer.response(304, headers: notModifiedHeaders(of: resource, as: behavior), body: nil)
                return true
            }
            let reply = reply(to: request, resource: resource, as: behavior)
            try await writer.response(reply.status, headers: reply.headers, body: isHead ? nil : reply.body, length: reply.body.count)
            return true

        case .status(let status, let body, let extra):
            try await writer.response(status, headers: extra, body: isHead ? nil : body, length: body.count)
            return true

        case .html:
            let page = Data("<!doctype html><html><body><h1>Oops</h1><p>This is not an image.</p></body></html>".utf8)
            try await writer.response(200, headers: ["Content-Type": "text/html; charset=utf-8"], body: page, length: page.count)
            return true

        case .truncated(let sendBytes):
            guard let resource else { return try await notFound(request, with: writer) }
            let reply = reply(to: request, resource: resource, as: .normal)
            try await writer.head(reply.status, headers: reply.headers, length: reply.body.count)
            try await writer.body(reply.body.prefix(sendBytes))
            return false

        case .wrongContentLength(let declared):
            guard let resource else { return try await notFound(request, with: writer) }
            try await writer.head(200, headers: headers(of: resource), length: declared)
            try await writer.body(resource.data)
            return false

        case .chunked(let chunkSize):
            guard let resource else { return try await notFound(request, with: writer) }
            let reply = reply(to: request, resource: resource, as: .normal)
            try await writer.head(reply.status, headers: reply.headers, length: nil)
            try await writer.pieces(of: reply.body, size: chunkSize, pause: nil)
            return true

        case .truncatedChunked(let sendBytes, let chunkSize):
            guard let resource else { return try await notFound(request, with: writer) }
            let reply = reply(to: request, resource: resource, as: .normal)
            try await writer.head(reply.status, headers: reply.headers, length: nil)
            var offset = reply.body.startIndex
            let end = reply.body.startIndex + min(max(sendBytes, 0), reply.body.count)
            while offset < end {
                let next = min(offset + max(1, chunkSize), end)
                try await writer.body(reply.body[offset..<next])
                offset = next
            }
            return false  // closed with no terminating chunk

        case .endless(let chunkSize):
            try await writer.head(200, headers: ["Content-Type": "application/octet-stream"], length: nil)
            let chunk = ByteBuffer(repeating: 0x55, count: max(1, chunkSize))
            while !Task.isCancelled {
                try await writer.body(chunk)
            }
            return false

        case .trickle(let bytesPerInterval, let interval):
            guard let resource else { return try await notFound(request, with: writer) }
            let reply = reply(to: request, resource: resource, as: .normal)
            try await writer.head(reply.status, headers: reply.headers, length: reply.body.count)
            try await writer.pieces(of: reply.body, size: bytesPerInterval, pause: interval)
            return true

        case .slices(let boundaries):
            guard let resource else { return try await notFound(request, with: writer) }
            let reply = reply(to: request, resource: resource, as: .normal)
            try await writer.head(reply.status, headers: reply.headers, length: reply.body.count)
            let ends = boundaries.map { min(max($0, 0), reply.body.count) }.sorted() + [reply.body.count]
            var sent = 0
            for (slice, end) in ends.enumerated() where end > sent {
                if slice > 0 { await waitForSlice(slice, of: request.path) }
                try await writer.body(reply.body.dropFirst(sent).prefix(end - sent))
                sent = end
            }
            try await writer.end()
            return true

        case .dropConnection:
            return false

        case .raw(let bytes):
            try await writer.raw(bytes)
            return false

        case .sequence:
            preconditionFailure("State.begin resolves sequences")
        }
    }

    /// What a `200` for `resource` carries: its validators, `Date` (now, unless the resource's own
    /// headers set one), its type, `Accept-Ranges` when it serves ranges, and its extra headers.
    private func headers(of resource: Resource) -> [String: String] {
        var headers = validators(of: resource)
        headers["Date"] = HTTPDate.imfFixdate(Date())
        headers["Content-Type"] = resource.contentType
        if resource.acceptsRanges { headers["Accept-Ranges"] = "bytes" }
        headers.merge(resource.headers) { $1 }
        return headers
    }

    /// A status, headers and body.
    private struct Reply {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    /// The answer to a request for `resource`: the whole body, or the range it asks for, as
    /// `behavior` (normal or one of the range misbehaviours) serves ranges.
    private func reply(to request: RecordedRequest, resource: Resource, as behavior: Behavior) -> Reply {
        var headers = headers(of: resource)
        if case .headers(let extra) = behavior { headers.merge(extra) { $1 } }
        var ranged = resource
        switch behavior {
        case .ignoresRange:
            headers["Accept-Ranges"] = "bytes"
            return Reply(status: 200, headers: headers, body: resource.data)
        case .wrongContentRange, .ignoresIfRange, .ignoresIfRangeWithoutValidators:
            ranged.acceptsRanges = true
            headers["Accept-Ranges"] = "bytes"
        default:
            break
        }
        guard let answer = ranged.requestedRange(request) else { return Reply(status: 200, headers: headers, body: resource.data) }
        let honoursIfRange = behavior != .ignoresIfRange && behavior != .ignoresIfRangeWithoutValidators
        if honoursIfRange, !resource.ifRangeMatches(request) {
            return Reply(status: 200, headers: headers, body: resource.data)
        }
        switch answer {
        case .unsatisfiable:
            headers["Content-Range"] = "bytes */\(resource.data.count)"
            return Reply(status: 416, headers: headers, body: Data())
        case .bytes(let span):
            headers["Content-Range"] = "bytes \(span.lowerBound)-\(span.upperBound)/\(resource.data.count)"
            if case .wrongContentRange(let field) = behavior { headers["Content-Range"] = field }
            if behavior == .ignoresIfRangeWithoutValidators {
                headers = headers.filter { !["etag", "last-modified"].contains($0.key.lowercased()) }
            }
            return Reply(status: 206, headers: headers, body: Data(resource.data.dropFirst(span.lowerBound).prefix(span.count)))
        }
    }

    /// What a `304` carries (RFC 9110 §15.4.5): of what a `200` to the same request would have
    /// carried, `Cache-Control`, `Content-Location`, `Date`, `ETag`, `Expires` and `Vary`, and
    /// `Last-Modified` when there is no `ETag` (the one other field that guides a cache's update).
    private func notModifiedHeaders(of resource: Resource, as behavior: Behavior) -> [String: String] {
        var whole = headers(of: resource)
        if case .headers(let extra) = behavior { whole.merge(extra) { $1 } }
        let kept: Set<String> = ["cache-control", "content-location", "date", "etag", "expires", "vary"]
        let hasETag = whole.keys.contains { $0.lowercased() == "etag" }
        return whole.filter { name, _ in
            kept.contains(name.lowercased()) || (!hasETag && name.lowercased() == "last-modified")
        }
    }

    private func validators(of resource: Resource) -> [String: String] {
        var headers: [String: String] = [:]
        headers["ETag"] = resource.etag
        headers["Last-Modified"] = resource.lastModified
        return headers
    }

    private func notFound(_ request: RecordedRequest, with writer: ResponseWriter) async throws -> Bool {
        try await writeNotFound(request, with: writer)
        return true
    }

    private func writeNotFound(_ request: RecordedRequest, with writer: ResponseWriter) async throws {
        let body = Data("Nothing is registered at \(request.path).\n".utf8)
        try await writer.response(404, headers: ["Content-Type": "text/plain; charset=utf-8"], body: body, length: body.count)
    }
}
#endif
