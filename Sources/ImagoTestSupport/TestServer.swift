#if os(Linux) || os(macOS)  // the loopback server: where test suites run (see Package.swift)
import Foundation
import Imago
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 that serves registered bodies and misbehaves on demand
/// (see ``Behavior``), counting what it sees. Tests use it to drive the data loaders through every
/// error path.
///
/// Start one with ``start()`` and stop it with ``shutdown()``, or scope it with
/// ``withTestServer(isolation:_:)``. Shutdown closes every connection, which ends endless and trickling
/// bodies.
public final class TestServer: Sendable {
    /// `http://127.0.0.1:<port>/`.
    public let baseURL: URL
    /// The port the system chose.
    public let port: Int

    let state = Locked(State())
    private let listener: any Channel
    private let acceptor = Locked<Task<Void, Never>?>(nil)
    let handoff: ConnectionHandoff

    private init(listener: any Channel, port: Int, handoff: ConnectionHandoff) {
        self.listener = listener
        self.handoff = handoff
        self.port = port
        self.baseURL = URL(string: "http://127.0.0.1:\(port)/")!
    }

    /// Starts a server on a free port of 127.0.0.1.
    public static func start() async throws -> TestServer {
        let handoff = ConnectionHandoff()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: "127.0.0.1", port: 0) { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.configureHTTPServerPipeline()
                    let connection = try Connection(wrappingChannelSynchronously: child)
                    handoff.receive(connection)
                    return connection
                }
            }
        guard let port = channel.channel.localAddress?.port else {
            try? await channel.channel.close()
            await handoff.close()
            throw ChannelError.unknownLocalAddress
        }
        let server = TestServer(listener: channel.channel, port: port, handoff: handoff)
        server.acceptor.withLock { $0 = Task { await server.accept(from: channel) } }
        return server
    }

    /// Stops listening, closes every open connection and waits until all of them have ended.
    public func shutdown() async throws {
        let (channels, held) = state.withLock { state in
            state.isShutDown = true
            defer {
                state.heldRequests = [:]
                state.sliceWaiters = [:]
            }
            return (
                Array(state.channels.values),
                state.heldRequests.values.flatMap { $0 } + state.sliceWaiters.values.flatMap { $0.map(\.continuation) }
            )
        }
        for request in held { request.resume() }
        try? await listener.close()
        for channel in channels {
            try? await channel.close()
        }
        let acceptor = acceptor.withLock { $0 }
        acceptor?.cancel()
        await acceptor?.value
        await handoff.close()
    }

    /// The absolute URL of `path` (with any query string) on this server; `"a.png"` and
    /// `"/a.png"` are the same.
    public func url(for path: String) -> URL {
        URL(string: path.hasPrefix("/") ? path : "/" + path, relativeTo: baseURL)!.absoluteURL
    }

    // MARK: Resources and behaviors

    /// Serves `data` at `path`. `etag` and `lastModified` are sent as `ETag` / `Last-Modified` and
    /// make matching conditional requests answer 304. With `acceptsRanges`, responses say
    /// `Accept-Ranges: bytes` and a `Range` of one span (`bytes=first-` or `bytes=first-last`) is
    /// answered `206` with its `Content-Range`, unless an `If-Range` names another validator than
    /// the current one (then `200` and the whole body), or `416` when it starts past the end.
    public func set(
        _ path: String, data: Data, contentType: String = "application/octet-stream",
        headers: [String: String] = [:], etag: String? = nil, lastModified: String? = nil, acceptsRanges: Bool = false
    ) {
        let resource = Resource(
            data: data, contentType: contentType, headers: headers, etag: etag, lastModified: lastModified,
            acceptsRanges: acceptsRanges)
        state.withLock { $0.resources[Self.normalized(path)] = resource }
    }

    /// Stops serving `path` (it answers 404 from now on).
    public func remove(_ path: String) {
        _ = state.withLock { $0.resources.removeValue(forKey: Self.normalized(path)) }
    }

    /// Makes requests for `path` misbehave as `behavior` says; `.normal` restores the default.
    /// Setting a behavior restarts its ``Behavior/sequence(_:)`` and holds ``Behavior/held`` paths
    /// (and the parts of ``Behavior/slices(boundaries:)``) anew.
    public func setBehavior(_ path: String, _ behavior: Behavior) {
        let path = Self.normalized(path)
        state.withLock { state in
            state.behaviors[path] = behavior
            state.sequencePositions[path] = nil
            state.releasedPaths.remove(path)
            state.slicesReleased[path] = nil
        }
    }

    /// Lets the next part of a ``Behavior/slices(boundaries:)`` response for `path` go out (a
    /// release made before the response reaches that part lets it pass at once).
    public func sendNextSlice(_ path: String) {
        let path = Self.normalized(path)
        let ready = state.withLock { state in
            state.slicesReleased[path, default: 0] += 1
            let released = state.slicesReleased[path, default: 0]
            let waiting = state.sliceWaiters[path] ?? []
            state.sliceWaiters[path] = waiting.filter { $0.slice > released }
            return waiting.filter { $0.slice <= released }.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Waits until part `slice` (1 for the second part) of `path`'s slices may be sent.
    func waitForSlice(_ slice: Int, of path: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state in
                if state.isShutDown || state.slicesReleased[path, default: 0] >= slice { return true }
                state.sliceWaiters[path, default: []].append((slice, continuation))
                return false
            }
            if passes { continuation.resume() }
        }
    }

    /// Answers the requests waiting on `path`'s ``Behavior/held``, and lets later ones pass.
    public func release(_ path: String) {
        let path = Self.normalized(path)
        let waiting = state.withLock { state in
            state.releasedPaths.insert(path)
            return state.heldRequests.removeValue(forKey: path) ?? []
        }
        for request in waiting { request.resume() }
    }

    /// Suspends a request of a ``Behavior/held`` path until ``release(_:)`` or shutdown.
    func waitForRelease(of path: String) async {
        await withCheckedContinuation { (request: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state in
                if state.isShutDown || state.releasedPaths.contains(path) { return true }
                state.heldRequests[path, default: []].append(request)
                return false
            }
            if passes { request.resume() }
        }
    }

    // MARK: Counts

    /// Requests received for `path` since the start or the last ``resetCounts()``.
    public func requestCount(for path: String) -> Int {
        state.withLock { $0.requests[Self.normalized(path)]?.count ?? 0 }
    }

    /// The requests received for `path`, oldest first.
    public func requests(for path: String) -> [RecordedRequest] {
        state.withLock { $0.requests[Self.normalized(path)] ?? [] }
    }

    /// Bytes of response bodies sent for `path` since the start or the last ``resetCounts()``
    /// (``Behavior/raw(_:)`` responses are not counted): what a resumed download proves it saved.
    public func bodyBytesSent(for path: String) -> Int {
        state.withLock { $0.bodyBytesSent[Self.normalized(path)] ?? 0 }
    }

    /// Requests received for all paths.
    public var totalRequestCount: Int { state.withLock { $0.totalRequests } }

    /// Connections open right now.
    public var currentConnections: Int { state.withLock { $0.openConnections } }

    /// The most connections that were open at once.
    public var maximumConcurrentConnections: Int { state.withLock { $0.peakConnections } }

    /// Requests being answered right now (received, response not yet finished).
    public var currentRequests: Int { state.withLock { $0.requestsInFlight } }

    /// The most requests that were being answered at once.
    public var maximumConcurrentRequests: Int { state.withLock { $0.peakRequests } }

    /// Forgets the request log and counts; the peaks restart from what is open now.
    public func resetCounts() {
        state.withLock { $0.resetCounts() }
    }

    /// Waits until at most `count` connections are open, checking every few milliseconds for up
    /// to `limit`. Returns whether that happened in time: tests use it to prove that a client
    /// really closed a connection it abandoned.
    public func waitForConnections(atMost count: Int = 0, within limit: Duration = .seconds(60)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while currentConnections > count {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    static func normalized(_ path: String) -> String {
        let path = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return path.hasPrefix("/") ? path : "/" + path
    }
}

/// Runs `body` with a freshly started ``TestServer`` and shuts the server down afterwards, even
/// when `body` throws.
public func withTestServer<Result>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (TestServer) async throws -> Result
) async throws -> Result {
    let server = try await TestServer.start()
    let result: Result
    do {
        result = try await body(server)
    } catch {
        try await server.shutdown()
        throw error
    }
    try await server.shutdown()
    return result
}
#endif
