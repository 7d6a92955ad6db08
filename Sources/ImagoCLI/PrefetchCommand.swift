import ArgumentParser
import Foundation
import Imago

/// `imago prefetch URL...`: warms the disk cache, at low priority, without decoding.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Download images into the disk cache so later loads need no network.",
        discussion: "Exit status: 0 when every image is cached, 1 when any failed, 2 for a usage error."
    )

    @Argument(help: "http or https URLs of images.")
    var urls: [String]

    @OptionGroup var cacheDirectory: CacheDirectoryOption

    @Flag(help: "Print one JSON object per URL instead of text.")
    var json = false

    func validate() throws {
        if urls.isEmpty { throw ValidationError("Give at least one URL.") }
        for url in urls where URL(string: url) == nil { throw ValidationError("'\(url)' is not a URL.") }
    }

    func run() async throws {
        let diskCache = try cacheDirectory.open()
        let pipeline = ImagePipeline(configuration: .init(memoryCache: nil, diskCache: diskCache))
        let progress = json || !ProgressBar.isTerminal ? nil : ProgressBar(total: urls.count)
        var failures = 0
        await withTaskGroup(of: (String, Result<(Int, ImageResponse.Source), ImagePipeline.Error>).self) { group in
            for url in urls {
                group.addTask {
                    let request = ImageRequest(url: URL(string: url)!, priority: .low)
                    do throws(ImagePipeline.Error) {
                        let (data, source) = try await pipeline.data(for: request)
                        return (url, .success((data.count, source)))
                    } catch {
                        return (url, .failure(error))
                    }
                }
            }
            for await (url, result) in group {
                progress?.advance()
                progress?.clear()
                switch result {
                case .success(let (bytes, source)):
                    print(
                        json
                            ? JSONValue.object([
                                "url": .string(url), "ok": .bool(true), "source": .string(source.rawValue),
                                "bytes": .int(bytes),
                            ]).encoded()
                            : "ok   \(source.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(ByteCount.format(bytes))  \(url)")
                case .failure(let error):
                    failures += 1
                    print(
                        json
                            ? JSONValue.object([
                                "url": .string(url), "ok": .bool(false),
                                "error": FetchReport.Failure(error).json,
                            ]).encoded()
                            : "FAIL \(error.code): \(error.description)")
                }
                progress?.draw()
            }
        }
        progress?.finish()
        await pipeline.waitForDiskWrites()
        if failures > 0 { throw ExitCode(1) }
    }
}
