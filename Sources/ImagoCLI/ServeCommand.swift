// The image proxy is Linux-only (Package.swift, README "imago serve").
#if os(Linux)
import ArgumentParser
import Foundation
import Imago
import ImagoDemo
import ImagoServer
import Logging
import ServiceLifecycle

/// `imago serve`: the pipeline as an image proxy (imgproxy's URL grammar, signed URLs).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve resized images for /{signature}/{options}/plain/{source URL} paths (an image proxy).",
        discussion: """
            Paths follow imgproxy's grammar: /{signature}/rs:fit:300:200/dpr:2/q:80/f:webp/plain/{escaped URL} \
            or /{signature}/{options}/{base64url URL}.{ext}. Signatures are HMAC-SHA256 with the hex key and salt \
            in IMAGO_KEY and IMAGO_SALT (or a --key-file of IMAGO_KEY=… and IMAGO_SALT=… lines); `imago sign` makes them. \
            SIGTERM or Ctrl-C finishes the requests in flight, then stops. README, "imago serve", has the whole grammar.
            """
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port, printed at start).")
    var port = 8080

    @Option(help: "File with IMAGO_KEY=… and IMAGO_SALT=… lines (hex), instead of the environment.")
    var keyFile: String?

    @Flag(help: "Serve unsigned paths (local development only; logs a warning).")
    var allowUnsigned = false

    @Flag(help: "Allow sources on loopback, private, link-local and other non-public addresses.")
    var allowPrivateNetworks = false

    @Option(name: .customLong("allow-host"), help: "Allowed source host, exact or *.example.com (repeat; none: any host).")
    var allowedHosts: [String] = []

    @Option(help: "Cache-Control max-age of signed responses, in seconds.")
    var signedMaxAge = 31_536_000

    @Option(help: "Cache-Control max-age of unsigned responses, in seconds.")
    var maxAge = 3600

    @Option(help: "Longest side of an output image, in pixels.")
    var maxDimension = 4096

    @Option(help: "Requests processed at once (default: 2 per core).")
    var concurrency: Int?

    @Option(help: "Requests that may wait for a slot before the server answers 503.")
    var queue = 64

    @Option(help: "Disk cache of source images: a folder of this user's alone (made with mode 700 if missing; refused if others may enter it). Default: a fresh folder under the temporary directory, removed at exit.")
    var cacheDirectory: String?

    @Flag(help: "Serve the demo gallery from an embedded loopback origin, with a page of thumbnails at /.")
    var demo = false

    @Flag(help: "Keep each source's colour profile and pixels instead of converting to sRGB (a URL's scp:1 still converts).")
    var keepColorProfile = false

    @Option(help: "Serve /metrics on this port of --metrics-host instead of the serving port (which then answers 404 for it).")
    var metricsPort: Int?

    @Option(help: "Address of the --metrics-port listener.")
    var metricsHost = "127.0.0.1"

    @Option(help: "Seconds a client has to send a whole request head (a trickle does not extend it).")
    var headerTimeout = 10

    @Option(help: "Seconds a keep-alive connection may stay silent between requests.")
    var idleTimeout = 75

    @Option(help: "Seconds a response may make no progress to a client that does not read.")
    var writeTimeout = 30

    @Option(help: "Open client connections; beyond, the longest-waiting idle or half-sent one is closed to make room.")
    var maxConnections = 2048

    @Option(help: "Largest request head, in bytes (larger: 400 and the connection closed).")
    var maxHeadSize = 32 * 1024

    @Option(help: "MiB of large response bodies queued to clients at once; beyond, 503 until readers catch up.")
    var maxResponseMegabytes = 256
    /// Presets, security options, the decoded-source tier (ServeProcessingOptions.swift).
    @OptionGroup var processing: ServeProcessingOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port takes 0 to 65535.") }
        guard (16...16384).contains(maxDimension) else { throw ValidationError("--max-dimension takes 16 to 16384.") }
        guard (1...4096).contains(concurrency ?? 1) else { throw ValidationError("--concurrency takes 1 to 4096.") }
        guard (0...100_000).contains(queue) else { throw ValidationError("--queue takes 0 to 100000.") }
        guard (0...65535).contains(metricsPort ?? 0) else { throw ValidationError("--metrics-port takes 0 to 65535.") }
        for (name, seconds) in [("--header-timeout", headerTimeout), ("--idle-timeout", idleTimeout), ("--write-timeout", writeTimeout)] {
            guard (1...3600).contains(seconds) else { throw ValidationError("\(name) takes 1 to 3600 seconds.") }
        }
        guard (1...1_000_000).contains(maxConnections) else { throw ValidationError("--max-connections takes 1 to 1000000.") }
        guard (1024...1_048_576).contains(maxHeadSize) else { throw ValidationError("--max-head-size takes 1024 to 1048576 bytes.") }
        guard (1...65536).contains(maxResponseMegabytes) else { throw ValidationError("--max-response-megabytes takes 1 to 65536.") }
    }

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let logger = Logger(label: "imago.serve")
        var signer: URLSigner?
        do {
            signer = try URLSigner.load(file: keyFile)
        } catch {
            throw ValidationError("the signing key: \(error)")
        }
        var policy = SourcePolicy(allowedHosts: allowedHosts, allowsPrivateNetworks: allowPrivateNetworks)
        var origin: DemoOrigin?
        var page: DemoPage?
        if demo {
            // The demo's origin is on loopback: allow exactly that host, nothing else private.
            let gallery = try Gallery.make(count: 24, longerSide: 1024)
            let server = try await DemoOrigin.start(serving: gallery)
            origin = server
            // The demo's origin is its one loopback port, beside the hosts --allow-host names (none:
            // the origin alone, so a demo is never an open proxy); every other port stays refused.
            policy.allowedHosts = ["127.0.0.1"] + policy.allowedHosts
            policy.allowedEndpoints.insert(SourcePolicy.Endpoint(.v4(127, 0, 0, 1), port: server.port))
            if signer == nil, !allowUnsigned {
                signer = URLSigner(key: Array(UUID().uuidString.utf8), salt: [])  // a key for this run only
            }
            page = DemoPage(
                items: gallery.items.map { item in
                    let size = ImageHeader.probe(item.data).map { "\($0.width)x\($0.height)" } ?? "?"
                    return DemoPage.Item(
                        source: server.url(for: item.path),
                        caption: "\(item.path.split(separator: "/").last ?? "") \(size) \(item.format)")
                }, signer: signer)
            // The options row: the gallery's first 4:3 and first 3:4 picture.
            func first(_ ratio: (Int, Int)) -> URL? {
                gallery.items.first { item in
                    ImageHeader.probe(item.data).map { $0.width * ratio.1 == $0.height * ratio.0 } ?? false
                }.map { server.url(for: $0.path) }
            }
            if let landscape = first((4, 3)), let portrait = first((3, 4)) {
                page?.variants = DemoPage.showcase(landscape: landscape, portrait: portrait)
            }
            logger.info("demo: \(gallery.summary) from \(server.baseURL.absoluteString)")
        }
        guard signer != nil || allowUnsigned else {
            throw ValidationError(
                "no signing key: set IMAGO_KEY and IMAGO_SALT (hex; `openssl rand -hex 32`), pass --key-file, or --allow-unsigned for local development")
        }
        if signer == nil {
            logger.warning("serving UNSIGNED paths (--allow-unsigned): anyone can make this server fetch and resize any allowed source")
        }
        if policy.allowsPrivateNetworks {
            logger.warning("--allow-private-networks: sources on loopback and private networks can be fetched")
        }
        var configuration = ImageProxyConfiguration(
            signer: signer, sourcePolicy: policy, maximumOutputDimension: maxDimension, signedMaxAge: signedMaxAge,
            unsignedMaxAge: maxAge, maximumQueuedRequests: queue, logger: logger)
        if let concurrency { configuration.maximumConcurrentRequests = concurrency }
        configuration.stripsColorProfile = !keepColorProfile
        try processing.apply(to: &configuration)
        let folder: ProxyCacheDirectory
        do {
            folder = try ProxyCacheDirectory.prepare(
                cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }, policy: policy)
        } catch {
            throw ValidationError("--cache-directory: \(error)")
        }
        defer { if folder.isTemporary { try? FileManager.default.removeItem(at: folder.root) } }
        let diskCache = try DiskCache(directory: folder.entries)
        let proxy = ImageProxy(configuration: configuration, diskCache: diskCache)
        let pageHTML = page.map { page in { @Sendable in page.html } }
        let host = self.host
        var limits = ImagoServer.Configuration(
            headerTimeout: .seconds(headerTimeout), idleTimeout: .seconds(idleTimeout), writeTimeout: .seconds(writeTimeout),
            maximumConnections: maxConnections, maximumResponseBytesInFlight: maxResponseMegabytes * 1024 * 1024,
            maximumRequestHeadSize: maxHeadSize, servesMetrics: metricsPort == nil)
        #if DEBUG
            // For HostileClientTests only: a server without the slow-reader bound, to show that the
            // suite's memory check catches it. Release builds have no such switch.
            if ProcessInfo.processInfo.environment["IMAGO_SERVE_UNPACED_BODIES"] == "1" { limits.pacesLargeBodies = false }
        #endif
        FileDescriptorLimit.raiseToHardLimit()
        let application = ImagoServer.application(proxy: proxy, host: host, port: port, page: pageHTML, configuration: limits) { bound in
            logger.info("imago serve: listening on http://\(host):\(bound)/")
            FileHandle.standardOutput.write(Data("listening on http://\(host):\(bound)/\n".utf8))
        }
        var services: [any Service] = [application]
        if let metricsPort {
            let metricsHost = self.metricsHost
            services.append(
                ImagoServer.metricsApplication(proxy: proxy, host: metricsHost, port: metricsPort, configuration: limits) { bound in
                    logger.info("imago serve: metrics on http://\(metricsHost):\(bound)/metrics")
                    FileHandle.standardOutput.write(Data("metrics on http://\(metricsHost):\(bound)/metrics\n".utf8))
                })
        }
        do {
            try await ImagoServer.run(services, logger: logger)
        } catch {
            await proxy.shutdown()
            try? await origin?.shutdown()
            throw error
        }
        await proxy.shutdown()
        try? await origin?.shutdown()
    }
}
#endif
