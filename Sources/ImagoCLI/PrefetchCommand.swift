import ArgumentParser
import Foundation
import Imago

/// `imago prefetch [URL...] [--from FILE|-]`: warms the disk cache, at low priority, without
/// decoding.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Download images into the disk cache so later loads need no network.",
        discussion: """
            URLs come from the arguments and from --from: a file (or - for standard input) with one \
            URL per line; blank lines and lines starting with # are skipped. Up to --concurrency \
            downloads run at once. On a terminal a progress bar shows done/total, bytes, rate, ETA \
            and failures; piped, or with NO_COLOR set, each URL is one plain line. A summary ends \
            the output. With --json, one JSON object per URL, then one with "summary".

            Examples:
              imago prefetch https://example.com/a.jpg https://example.com/b.jpg
              imago prefetch --from urls.txt --concurrency 12
              grep -o 'https://[^"]*\\.jpg' page.html | imago prefetch --from -

            Exit status: 0 when every image is cached, 1 when any failed, 2 for a usage error \
            (including a --from file that cannot be read or holds a line that is not a URL).
            """
    )

    @Argument(help: "http or https URLs of images.")
    var urls: [String] = []

    @Option(
        name: .customLong("from"), help: ArgumentHelp("Read URLs from FILE, one per line; - reads standard input.", valueName: "FILE"),
        completion: .file())
    var listFile: String?

    @Option(help: "Downloads at once (default: the pipeline's maximumConcurrentDownloads).")
    var concurrency: Int?

    @OptionGroup var cacheDirectory: CacheDirectoryOption

    @Flag(help: "Print one JSON object per URL, then a summary object, instead of text.")
    var json = false

    static let concurrencyRange = 1...64

    func validate() throws {
        if urls.isEmpty && listFile == nil { throw ValidationError("Give at least one URL, or a list with --from FILE.") }
        if let concurrency, !Self.concurrencyRange.contains(concurrency) {
            throw ValidationError("--concurrency takes 1 to \(Self.concurrencyRange.upperBound), not \(concurrency).")
        }
        for url in urls { _ = try URLList.parse(url, origin: "argument").get() }
    }

    func run() async throws {
        var list = try urls.map { try URLList.parse($0, origin: "argument").get() }
        if let listFile { list += try URLList.read(listFile) }
        let diskCache = try cacheDirectory.open()
        let pipeline = ImagePipeline(
            configuration: concurrency.map {
                ImagePipeline.Configuration(memoryCache: nil, diskCache: diskCache, maximumConcurrentDownloads: $0)
            } ?? ImagePipeline.Configuration(memoryCache: nil, diskCache: diskCache))
        let progress = ProgressBar(total: list.count, label: "prefetch", enabled: !json)
        var sources: [ImageResponse.Source: Int] = [:]
        progress.draw()
        await withTaskGroup(of: (URL, Result<(Int, ImageResponse.Source), ImagePipeline.Error>).self) { group in
            for url in list {
                group.addTask {
                    let request = ImageRequest(url: url, priority: .low)
                    do throws(ImagePipeline.Error) {
                        let original = try await pipeline.data(for: request)
                        let (data, source) = (original.data, original.source)
                        return (url, .success((data.count, source)))
                    } catch {
                        return (url, .failure(error))
                    }
                }
            }
            for await (url, result) in group {
                switch result {
                case .success(let (bytes, source)):
                    sources[source, default: 0] += 1
                    progress.print(
                        json
                            ? JSONValue.object([
                                "url": .string(url.absoluteString), "ok": .bool(true), "source": .string(source.rawValue),
                                "bytes": .int(bytes),
                            ]).encoded()
                            : "ok   \(source.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(ByteCount.format(bytes))  \(url.absoluteString)")
                    progress.advance(bytes: bytes)
                case .failure(let error):
                    progress.print(
                        json
                            ? JSONValue.object([
                                "url": .string(url.absoluteString), "ok": .bool(false),
                                "error": FetchReport.Failure(error).json,
                            ]).encoded()
                            : "FAIL \(error.code): \(error.description)")
                    progress.advance(failed: true)
                }
            }
        }
        progress.finish()
        await pipeline.waitForDiskWrites()
        let seconds = progress.elapsed
        let cached = list.count - progress.failures
        if json {
            print(
                JSONValue.object([
                    "summary": .object([
                        "urls": .int(list.count), "cached": .int(cached), "failed": .int(progress.failures),
                        "downloaded": .int(sources[.network, default: 0]),
                        "already_cached": .int(cached - sources[.network, default: 0]),
                        "bytes": .int(progress.bytes), "seconds": .double((seconds * 1000).rounded() / 1000),
                        "cache_dir": .string(diskCache.directory.path),
                    ])
                ]).encoded())
        } else {
            let downloaded = sources[.network, default: 0]
            print(
                "prefetched \(cached) of \(list.count) (\(downloaded) downloaded, \(cached - downloaded) already cached), "
                    + "\(ByteCount.format(progress.bytes)) in \(ProgressBar.duration(seconds))"
                    + (progress.failures > 0 ? ", \(progress.failures) failed" : "") + " → \(diskCache.directory.path)")
        }
        if progress.failures > 0 { throw ExitCode(1) }
    }
}

/// Reading the URLs `imago prefetch` is given.
enum URLList {
    /// One URL, or an error that says where it came from (`urls.txt:3`) and what is wrong.
    static func parse(_ text: String, origin: String) -> Result<URL, ValidationError> {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host != nil || scheme == "file"
        else {
            return .failure(ValidationError("\(origin): '\(text)' is not a URL; write one absolute http or https URL per line."))
        }
        return .success(url)
    }

    /// The URLs in the file at `path` (`-`: standard input): one per line, blank lines and `#`
    /// comments skipped.
    static func read(_ path: String) throws -> [URL] {
        let data: Data
        let name = path == "-" ? "standard input" : path
        do {
            data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError.usage(
                "Cannot read the URL list \(path): \((error as NSError).localizedDescription). Check the path, or pass - to read standard input.")
        }
        var urls: [URL] = []
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() {
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty || text.hasPrefix("#") { continue }
            switch parse(text, origin: "\(name):\(number + 1)") {
            case .success(let url): urls.append(url)
            case .failure(let error): throw CLIError.usage(error.description)
            }
        }
        return urls
    }
}
