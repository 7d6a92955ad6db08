import ArgumentParser
import Foundation
import Imago

/// `imago fetch URL...`: loads every URL concurrently through one pipeline.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load images concurrently through one pipeline and report each one.",
        discussion: """
            With --json, prints one JSON object per URL on its own line ("resumed_bytes" says how \
            much of an interrupted download a retry did not fetch again). On a terminal a progress \
            bar runs below the results and names the latest preview of a progressive JPEG; piped, \
            or with NO_COLOR set, output is plain lines.

            Examples:
              imago fetch https://example.com/a.jpg https://example.com/b.png
              imago fetch --thumbnail 256 --out thumbs https://example.com/a.jpg
              imago fetch --offline --json https://example.com/a.jpg    (from the cache only)

            Exit status: 0 when every image loaded, 1 when any failed, 2 for a usage error.
            """
    )

    @Argument(help: "http or https URLs of images.")
    var urls: [String]

    @OptionGroup var cacheDirectory: CacheDirectoryOption

    @Flag(name: .customLong("no-disk-cache"), help: "Use no disk cache.")
    var noDiskCache = false

    @Option(name: .customLong("thumbnail"), help: "Scale each image so its longer side is at most PIXELS.")
    var maximumPixelSize: Int?

    @Option(name: .customLong("out"), help: "Write each decoded image into this directory (PNG, or JPEG for JPEG sources).")
    var outputDirectory: String?

    @Option(help: "Download priority, most urgent first in the queue.")
    var priority: PriorityArgument = .normal

    @Option(help: "Retries after a transient failure (connection error, timeout, 408, 429, 5xx).")
    var retries: Int = RetryPolicy.default.maximumAttempts - 1

    @Option(help: "Seconds allowed for each whole download.")
    var timeout: Double = 30

    @Flag(help: "Answer from the caches only; never use the network.")
    var offline = false

    @Flag(help: "Print one JSON object per URL instead of a table.")
    var json = false

    /// Retries allowed: enough for any flaky server, and `retries + 1` cannot overflow.
    static let retryRange = 0...100
    /// Seconds allowed per download: a millisecond to a day, so the `Duration` is exact and finite.
    static let timeoutRange = 0.001...86_400.0
    /// Thumbnail sizes allowed, in pixels.
    static let thumbnailRange = 1...65_535

    func validate() throws {
        if urls.isEmpty { throw ValidationError("Give at least one URL.") }
        if let maximumPixelSize, !Self.thumbnailRange.contains(maximumPixelSize) {
            throw ValidationError(
                "--thumbnail takes \(Self.thumbnailRange.lowerBound) to \(Self.thumbnailRange.upperBound) pixels, not \(maximumPixelSize).")
        }
        if noDiskCache && cacheDirectory.path != nil {
            throw ValidationError("--cache-dir and --no-disk-cache contradict each other; give one.")
        }
        if !Self.retryRange.contains(retries) {
            throw ValidationError("--retries takes \(Self.retryRange.lowerBound) to \(Self.retryRange.upperBound), not \(retries).")
        }
        // NaN fails every comparison, so it is refused here too.
        if !(timeout >= Self.timeoutRange.lowerBound && timeout <= Self.timeoutRange.upperBound) {
            throw ValidationError(
                "--timeout takes \(Self.timeoutRange.lowerBound) to \(Int(Self.timeoutRange.upperBound)) seconds, not \(timeout).")
        }
        for url in urls where URL(string: url) == nil {
            throw ValidationError("'\(url)' is not a URL.")
        }
    }

    func run() async throws {
        let diskCache = noDiskCache ? nil : try cacheDirectory.open()
        let output = try outputDirectory.map(OutputDirectory.init(path:))
        let loader = ImagePipeline.Configuration.makeDefaultDataLoader(
            configuration: DataLoader.Configuration(downloadTimeout: .milliseconds(Int64((timeout * 1000).rounded()))))
        let progress = ProgressBar(total: urls.count, enabled: !json)
        var configuration = ImagePipeline.Configuration(
            dataLoader: loader, diskCache: diskCache, retryPolicy: RetryPolicy(maximumAttempts: retries + 1))
        // Previews cost decoding: only for a bar that shows them.
        configuration.decodesPreviews = progress.isShown
        let pipeline = ImagePipeline(configuration: configuration)
        // Copies of one URL share one load and report its outcome, so every copy says where the
        // image came from rather than "memory" for the copies that happen to start later.
        var copies: [String: Int] = [:]
        let unique = urls.filter { url in
            copies[url, default: 0] += 1
            return copies[url] == 1
        }

        var failures = 0
        await withTaskGroup(of: FetchReport.self) { group in
            for (index, url) in unique.enumerated() {
                let request = ImageRequest(
                    url: URL(string: url)!, maximumPixelSize: maximumPixelSize,
                    cachePolicy: offline ? .returnCacheDataDontLoad : .useCache, priority: priority.value)
                var preview: (@Sendable (ImagePreview) -> Void)?
                if progress.isShown {
                    let url = request.url
                    preview = { image in progress.notePreview(of: url, scans: image.scanCount) }
                }
                group.addTask {
                    await FetchReport.load(request, index: index, pipeline: pipeline, output: output, preview: preview)
                }
            }
            for await report in group {
                for _ in 0..<(copies[report.url] ?? 1) {
                    if !report.ok { failures += 1 }
                    progress.print(json ? report.jsonLine() : report.textLine())
                    progress.advance(bytes: report.byteCount, failed: !report.ok)
                }
            }
        }
        progress.finish()
        await pipeline.waitForDiskWrites()
        if failures > 0 { throw ExitCode(1) }
    }
}
