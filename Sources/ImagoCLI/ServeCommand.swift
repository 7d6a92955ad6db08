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
            in IMGPROXY_KEY and IMGPROXY_SALT (or IMAGO_KEY and IMAGO_SALT, or a --key-file of such lines); `imago sign` makes them. \
            imgproxy's IMGPROXY_* variables configure it too (flags win); README, "Coming from imgproxy", lists them. \
            SIGTERM or Ctrl-C finishes the requests in flight, then stops. README, "imago serve", has the whole grammar.
            """
    )

    @Option(help: "Address to listen on (default: 127.0.0.1; IMGPROXY_BIND's host, 0.0.0.0 for :PORT or PORT).")
    var host: String?

    @Option(help: "Port to listen on (0: any free port, printed at start; default: 8080, or IMGPROXY_BIND's or PORT).")
    var port: Int?

    @Option(help: "File with IMAGO_KEY=… and IMAGO_SALT=… lines (hex), instead of the environment.")
    var keyFile: String?

    @Flag(help: "Serve unsigned paths (local development only; logs a warning).")
    var allowUnsigned = false

    @Flag(help: "Allow sources on loopback, private, link-local and other non-public addresses (all of IMGPROXY_ALLOW_LOOPBACK_/PRIVATE_/LINK_LOCAL_SOURCE_ADDRESSES, and more).")
    var allowPrivateNetworks = false

    @Option(name: .customLong("allow-host"), help: "Allowed source host, exact or *.example.com (repeat; none: any host).")
    var allowedHosts: [String] = []

    @Option(help: "Cache-Control max-age of signed responses, in seconds (default: 31536000, or IMGPROXY_TTL).")
    var signedMaxAge: Int?

    @Option(help: "Cache-Control max-age of unsigned responses, in seconds (default: 3600, or IMGPROXY_TTL).")
    var maxAge: Int?

    @Option(help: "Longest side of an output image, in pixels (default: 4096, or IMGPROXY_MAX_RESULT_DIMENSION).")
    var maxDimension: Int?

    @Option(help: "Requests processed at once (default: 2 per core, or IMGPROXY_WORKERS).")
    var concurrency: Int?

    @Option(help: "Requests that may wait for a slot before the server answers 429 (default: 64, or IMGPROXY_REQUESTS_QUEUE_SIZE).")
    var queue: Int?

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

    @Option(help: "Seconds a client has to send a whole request head (a trickle does not extend it; default: 10, or IMGPROXY_READ_REQUEST_TIMEOUT).")
    var headerTimeout: Int?

    @Option(help: "Seconds a keep-alive connection may stay silent between requests (default: 75, or IMGPROXY_KEEP_ALIVE_TIMEOUT).")
    var idleTimeout: Int?

    @Option(help: "Seconds a response may make no progress to a client that does not read (default: 30, or IMGPROXY_WRITE_RESPONSE_TIMEOUT).")
    var writeTimeout: Int?

    @Option(help: "Open client connections; beyond, the longest-waiting idle or half-sent one is closed to make room (default: 2048, or IMGPROXY_MAX_CLIENTS).")
    var maxConnections: Int?

    @Option(help: "Largest request head, in bytes (larger: 400 and the connection closed).")
    var maxHeadSize = 32 * 1024

    @Option(help: "MiB of large response bodies queued to clients at once; beyond, 503 until readers catch up.")
    var maxResponseMegabytes = 256
    /// Presets, security options, the decoded-source tier (ServeProcessingOptions.swift).
    @OptionGroup var processing: ServeProcessingOptions

    func validate() throws {
        guard (0...65535).contains(port ?? 0) else { throw ValidationError("--port takes 0 to 65535.") }
        guard (16...16384).contains(maxDimension ?? 16) else { throw ValidationError("--max-dimension takes 16 to 16384.") }
        guard (1...4096).contains(concurrency ?? 1) else { throw ValidationError("--concurrency takes 1 to 4096.") }
        guard (0...100_000).contains(queue ?? 0) else { throw ValidationError("--queue takes 0 to 100000.") }
        guard (0...65535).contains(metricsPort ?? 0) else { throw ValidationError("--metrics-port takes 0 to 65535.") }
        for (name, seconds) in [("--header-timeout", headerTimeout), ("--idle-timeout", idleTimeout), ("--write-timeout", writeTimeout)] {
            guard (1...3600).contains(seconds ?? 1) else { throw ValidationError("\(name) takes 1 to 3600 seconds.") }
        }
        guard (1...1_000_000).contains(maxConnections ?? 1) else { throw ValidationError("--max-connections takes 1 to 1000000.") }
        guard (1024...1_048_576).contains(maxHeadSize) else { throw ValidationError("--max-head-size takes 1024 to 1048576 bytes.") }
        guard (1...65536).contains(maxResponseMegabytes) else { throw ValidationError("--max-response-megabytes takes 1 to 65536.") }
    }

    func run() async throws {
        let environment: ServeEnvironment
        do {
            environment = try ServeEnvironment(ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError("the environment: \(error)")
        }
        // imgproxy's IMGPROXY_LOG_FORMAT and IMGPROXY_LOG_LEVEL (pretty and info unless set).
        let observability = environment.observability
        let logFormat = observability.logFormat ?? .pretty
        let logLevel = observability.logLevel ?? .info
        // imgproxy's IMGPROXY_SYSLOG_*: connected now, as imgproxy does, so a wrong address stops
        // the start. Its failures later are told on standard error only.
        var syslog: SyslogWriter?
        if observability.syslogEnabled == true, let destination = observability.syslogDestination {
            let reporter = Logger(label: "imago.syslog") { ServeLogHandler(label: $0, format: logFormat, logLevel: logLevel) }
            do {
                syslog = try SyslogWriter(
                    destination: destination, tag: observability.syslogTag ?? "imgproxy", level: observability.syslogLevel ?? logLevel,
                    report: { level, text in reporter.log(level: level, "\(text)") })
            } catch {
                guard destination.network != nil else {
                    throw ValidationError(
                        "IMGPROXY_SYSLOG_ENABLE: \(error); run a syslog daemon, or name a server with IMGPROXY_SYSLOG_NETWORK and IMGPROXY_SYSLOG_ADDRESS")
                }
                throw ValidationError("IMGPROXY_SYSLOG_ADDRESS: syslog at \(destination) cannot be reached: \(error)")
            }
        }
        LoggingSystem.bootstrap { [syslog] in ServeLogHandler(label: $0, format: logFormat, logLevel: logLevel, syslog: syslog) }
        // The last lines (shutdown) reach syslog before the process ends, unless it is stuck.
        defer { syslog?.flush(within: .seconds(2)) }
        let logger = Logger(label: "imago.serve")
        var signer: URLSigner?
        do {
            signer = try URLSigner.load(file: keyFile)
        } catch {
            throw ValidationError("the signing key: \(error)")
        }
        var policy = SourcePolicy(allowedHosts: allowedHosts, allowsPrivateNetworks: allowPrivateNetworks)
        environment.apply(to: &policy)
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
                "no signing key: set IMGPROXY_KEY and IMGPROXY_SALT (or IMAGO_KEY and IMAGO_SALT; hex; `openssl rand -hex 32`), pass --key-file, or --allow-unsigned for local development")
        }
        if signer == nil {
            logger.warning("serving UNSIGNED paths (--allow-unsigned): anyone can make this server fetch and resize any allowed source")
        }
        if !environment.unwritablePreferredFormats.isEmpty {
            logger.warning(
                "IMGPROXY_PREFERRED_FORMATS: this server cannot write \(environment.unwritablePreferredFormats.joined(separator: ", ")); passed over")
        }
        if policy.allowsPrivateNetworks {
            logger.warning("--allow-private-networks: sources on loopback and private networks can be fetched")
        } else if !policy.allowedNetworkKinds.isEmpty {
            logger.warning("IMGPROXY_ALLOW_…_SOURCE_ADDRESSES: sources on \(policy.allowedNetworkKinds.map { "\($0)" }.sorted().joined(separator: ", ")) addresses can be fetched")
        }
        var configuration = ImageProxyConfiguration(
            signer: signer, sourcePolicy: policy, maximumOutputDimension: maxDimension ?? environment.maximumResultDimension ?? 4096,
            signedMaxAge: signedMaxAge ?? environment.ttl ?? 31_536_000, unsignedMaxAge: maxAge ?? environment.ttl ?? 3600,
            maximumQueuedRequests: queue ?? environment.queueSize ?? 64, logger: logger)
        if let workers = concurrency ?? environment.workers { configuration.maximumConcurrentRequests = workers }
        configuration.stripsColorProfile = keepColorProfile ? false : (environment.stripsColorProfile ?? true)
        try environment.apply(to: &configuration)
        try processing.apply(to: &configuration, environment: environment)
        if let root = processing.localFilesystemRoot ?? environment.localFilesystemRoot {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("the local filesystem root \(root) (--local-filesystem-root, IMGPROXY_LOCAL_FILESYSTEM_ROOT) is not a folder")
            }
            configuration.localFilesystemRoot = root
        }
        let folder: ProxyCacheDirectory
        do {
            folder = try ProxyCacheDirectory.prepare(
                cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }, policy: policy)
        } catch {
            throw ValidationError("--cache-directory: \(error)")
        }
        defer { if folder.isTemporary { try? FileManager.default.removeItem(at: folder.root) } }
        let diskCache = try DiskCache(directory: folder.entries)
        let metrics = ServerMetrics(namespace: environment.observability.prometheusNamespace ?? "imago")
        let proxy = ImageProxy(configuration: configuration, metrics: metrics, diskCache: diskCache)
        let pageHTML = page.map { page in { @Sendable in page.html } }
        let host = self.host ?? environment.host ?? "127.0.0.1"
        let port = self.port ?? environment.port ?? 8080
        // --metrics-port (with --metrics-host), else imgproxy's IMGPROXY_PROMETHEUS_BIND.
        let metricsPort = self.metricsPort ?? environment.observability.prometheusPort
        let metricsHost = self.metricsPort == nil ? (environment.observability.prometheusHost ?? self.metricsHost) : self.metricsHost
        if let metricsPort, metricsPort != 0, metricsPort == port, metricsHost == host || metricsHost == "0.0.0.0" || host == "0.0.0.0" {
            throw ValidationError(
                "the metrics address \(metricsHost):\(metricsPort) (--metrics-port, IMGPROXY_PROMETHEUS_BIND) is the serving address; give it a port of its own")
        }
        var limits = ImagoServer.Configuration(
            headerTimeout: .seconds(headerTimeout ?? environment.readRequestTimeout ?? 10),
            idleTimeout: .seconds(idleTimeout ?? environment.keepAliveTimeout ?? 75),
            writeTimeout: .seconds(writeTimeout ?? environment.writeResponseTimeout ?? 30),
            maximumConnections: maxConnections ?? environment.maximumClients ?? 2048,
            maximumResponseBytesInFlight: maxResponseMegabytes * 1024 * 1024,
            maximumRequestHeadSize: maxHeadSize, servesMetrics: metricsPort == nil)
        limits.healthCheckPath = environment.healthCheckPath
        limits.pathPrefix = environment.pathPrefix ?? ""
        limits.allowOrigin = environment.allowOrigin
        limits.secret = environment.secret
        limits.logsMemoryStatistics = observability.logsMemoryStatistics ?? false
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
