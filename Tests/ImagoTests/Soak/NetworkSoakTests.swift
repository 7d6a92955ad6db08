import Foundation
import Imago
import ImagoTestSupport
import Testing

/// Many requests through one pipeline against a server where a fifth misbehave: every request
/// ends in its image or its own error in time, nothing damaged reaches the disk cache, memory
/// stays flat and no download outlives the run.
///
/// `IMAGO_SOAK_REQUESTS` sets the count (default 2,000, which keeps the suite well under a minute
/// on a loaded 2-core machine; run 10,000 by hand for the figures in the report).
@Suite(.serialized) struct NetworkSoakTests {
    static let requestCount = ProcessInfo.processInfo.environment["IMAGO_SOAK_REQUESTS"].flatMap { Int($0) }
        .map { max(1_000, $0) } ?? 2_000
    /// Requests in flight at once.
    static let window = 48

    /// The ways a request goes: one in five is a fault, each fault as often as the others.
    enum Kind: String, CaseIterable, Sendable {
        case good, reset, truncated, wrongLength, serverError, stall, garbage, endless, redirectLoop, hostileHeaders

        static let faults = allCases.filter { $0 != .good }

        /// The kind of request `index`: of every 45, 9 are faults (one of each) and 36 are good.
        static func of(_ index: Int) -> Kind {
            let slot = index % 45
            return slot < faults.count ? faults[slot] : .good
        }

        var path: String { "/\(rawValue).jpg" }

        /// Whether a request of this kind loads its image.
        var succeeds: Bool { self == .good || self == .hostileHeaders }

        /// The error codes a failing request of this kind may end with.
        var errorCodes: Set<String> {
            switch self {
            case .good, .hostileHeaders: []
            case .reset: ["connection_failed"]
            case .truncated, .wrongLength: ["body_length_mismatch"]
            case .serverError: ["http_status"]
            case .stall: ["timeout_stall", "timeout_download"]
            case .garbage: ["connection_failed"]
            case .endless: ["body_too_large"]
            case .redirectLoop: ["connection_failed"]
            }
        }
    }

    struct Outcome: Sendable {
        let index: Int
        let code: String
        let elapsed: Duration
    }

    /// Resident memory of this process, from /proc/self/statm.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func configure(_ server: TestServer, image: Data) {
        for kind in Kind.allCases { server.set(kind.path, data: image, contentType: "image/jpeg") }
        server.setBehavior(Kind.reset.path, .dropConnection)
        server.setBehavior(Kind.truncated.path, .truncated(sendBytes: image.count / 2))
        server.setBehavior(Kind.wrongLength.path, .wrongContentLength(declared: image.count + 100))
        server.setBehavior(Kind.serverError.path, .status(500, body: Data("oops".utf8)))
        server.setBehavior(Kind.stall.path, .trickle(bytesPerInterval: 64, interval: .seconds(10)))
        var garbage = SystemRandomNumberGenerator()
        server.setBehavior(Kind.garbage.path, .raw(Data((0..<512).map { _ in UInt8.random(in: 0...255, using: &garbage) })))
        server.setBehavior(Kind.endless.path, .endless(chunkSize: 16 * 1024))
        server.setBehavior(Kind.redirectLoop.path, .status(302, headers: ["Location": "/loop-b.jpg"]))
        server.setBehavior("/loop-b.jpg", .status(302, headers: ["Location": Kind.redirectLoop.path]))
        let hostile: [(String, String)] = [
            ("Content-Type", "image/jpeg"), ("Content-Length", "\(image.count)"),
            ("Cache-Control", "max-age="), ("Cache-Control", "max-age=-1, s-maxage=\"\""), ("ETag", ""),
            ("ETag", String(repeating: "\"", count: 3)), ("Last-Modified", "never"), ("Age", "-1"),
            ("Expires", "0"), ("Retry-After", "99999999999999999999"),
        ]
        server.setBehavior(Kind.hostileHeaders.path, .raw(TestServer.rawResponse(fields: hostile, body: image)))
    }

    @Test func tenThousandRequestsWithAFifthMisbehaving() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("imago-soak-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = try Fixtures.jpeg(width: 64, height: 48)
        let loaderConfiguration = DataLoader.Configuration(
            maximumBodySize: 1024 * 1024, connectTimeout: .seconds(10), downloadTimeout: .seconds(20),
            // 8 s: below the stalling server's 10 s between bytes, above what a good response waits
            // for a core while browser and fleet tests share the machine.
            stallTimeout: .seconds(8), maximumConnections: 32)
        let loader = ImagePipeline.Configuration.makeDefaultDataLoader(configuration: loaderConfiguration)
        let diskCache = try DiskCache(directory: directory)
        // No memory cache: every request goes to the disk cache and the network, and memory
        // growth means a leak, not a cache filling up.
        let pipeline = ImagePipeline(
            configuration: .init(
                dataLoader: loader, memoryCache: nil, diskCache: diskCache, maximumConcurrentDownloads: 32,
                retryPolicy: .never, connectivity: .alwaysReachable))

        try await withTestServer { server in
            Self.configure(server, image: image)
            let clock = ContinuousClock()
            let start = clock.now
            var outcomes: [Outcome] = []
            outcomes.reserveCapacity(Self.requestCount)
            var residentAfterFirstThousand: Int?

            var next = 0
            await withTaskGroup(of: Outcome.self) { group in
                func submit(_ index: Int) {
                    let kind = Kind.of(index)
                    // A query makes every request its own cache key; the server ignores it.
                    let url = server.url(for: "\(kind.path)?n=\(index)")
                    group.addTask {
                        let begun = clock.now
                        do throws(ImagePipeline.Error) {
                            _ = try await pipeline.image(for: ImageRequest(url: url))
                            return Outcome(index: index, code: "ok", elapsed: clock.now - begun)
                        } catch {
                            return Outcome(index: index, code: error.code, elapsed: clock.now - begun)
                        }
                    }
                }
                while next < min(Self.window, Self.requestCount) {
                    submit(next)
                    next += 1
                }
                while let outcome = await group.next() {
                    outcomes.append(outcome)
                    if outcomes.count == 1_000 {
                        await pipeline.waitForDiskWrites()
                        server.resetCounts()
                        residentAfterFirstThousand = Self.residentBytes()
                    } else if outcomes.count % 1_000 == 0 {
                        server.resetCounts()  // the request log is the server's, not the pipeline's
                    }
                    if next < Self.requestCount {
                        submit(next)
                        next += 1
                    }
                }
            }
            await pipeline.waitForDiskWrites()
            let elapsed = clock.now - start
            let residentAtEnd = Self.residentBytes()

            // Every request ended, each as its kind allows, within its time limits.
            #expect(outcomes.count == Self.requestCount)
            var counts: [String: Int] = [:]
            for outcome in outcomes {
                let kind = Kind.of(outcome.index)
                counts["\(kind.rawValue) \(outcome.code)", default: 0] += 1
                if kind.succeeds {
                    #expect(outcome.code == "ok", "request \(outcome.index) (\(kind)): \(outcome.code)")
                } else {
                    #expect(kind.errorCodes.contains(outcome.code), "request \(outcome.index) (\(kind)): \(outcome.code)")
                }
                // The whole-download limit, plus time spent queued and a generous margin.
                #expect(outcome.elapsed < .seconds(60), "request \(outcome.index) took \(outcome.elapsed)")
            }

            // Nothing damaged on disk: faults stored nothing, good entries hold the served bytes.
            var stored = 0
            for index in 0..<Self.requestCount {
                let kind = Kind.of(index)
                let key = ImageRequest(url: server.url(for: "\(kind.path)?n=\(index)")).originalKey
                guard let entry = diskCache.entry(forKey: key, allowExpired: true) else { continue }
                stored += 1
                #expect(kind.succeeds, "a \(kind) response was cached")
                #expect(entry.data == image, "request \(index) (\(kind)) cached other bytes")
            }

            // No download, queue slot or connection outlives the run.
            #expect(await eventually {
                let statistics = pipeline.statistics()
                return statistics.activeDownloads == 0 && statistics.queuedDownloads == 0
            })
            if let loader = loader as? URLSessionDataLoader {
                #expect(await eventually { loader.activeTransferCount == 0 })
            }
            #expect(await eventually { server.currentRequests == 0 })

            // Memory at the end is within 20% of what it was after the first thousand.
            if let before = residentAfterFirstThousand, let after = residentAtEnd {
                #expect(Double(after) <= Double(before) * 1.2, "resident \(before) B after 1,000, \(after) B at the end")
            }
            let megabytes = { (bytes: Int?) in bytes.map { String(format: "%.1f MB", Double($0) / 1_048_576) } ?? "?" }
            print(
                """
                Network soak: \(Self.requestCount) requests in \(elapsed), \(stored) entries on disk; \
                resident \(megabytes(residentAfterFirstThousand)) after 1,000, \(megabytes(residentAtEnd)) at the end; \
                outcomes \(counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
                """)
        }
        if let loader = loader as? HTTPClientDataLoader { try await loader.shutdown() }
        if let loader = loader as? URLSessionDataLoader { await loader.shutdown() }
    }
}
