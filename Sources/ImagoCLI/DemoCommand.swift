import ArgumentParser
import Foundation
import Imago
import ImagoTestSupport

/// `imago demo`: the pipeline end to end on an embedded loopback server, no network needed.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serve a generated gallery on 127.0.0.1 and load it three times: network, memory, disk.",
        discussion: """
            Pass 1 loads every image over HTTP with a fresh disk cache, pass 2 asks the same
            pipeline again (memory), pass 3 asks a new pipeline on the same disk cache (disk).
            Exits with status 1 if any pass came from the wrong place or the server saw more than
            one request per image.
            """
    )

    @Option(help: "Number of images in the gallery.")
    var images = 24

    @Option(help: "Longer side of the generated images, in pixels.")
    var size = 1024

    @Option(help: "Also make thumbnails of at most PIXELS (0 for full size).")
    var thumbnail = 256

    func validate() throws {
        guard (1...500).contains(images) else { throw ValidationError("--images takes 1 to 500.") }
        guard (16...4096).contains(size) else { throw ValidationError("--size takes 16 to 4096 pixels.") }
        guard (0...FetchCommand.thumbnailRange.upperBound).contains(thumbnail) else {
            throw ValidationError("--thumbnail takes 0 to \(FetchCommand.thumbnailRange.upperBound) pixels, not \(thumbnail).")
        }
    }

    func run() async throws {
        let gallery = try Gallery.make(count: images, longerSide: size)
        let server = try await TestServer.start()
        let cacheDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("imago-demo-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        do {
            for item in gallery.items { server.set(item.path, data: item.data, contentType: item.format.mimeType) }
            print("Imago demo: \(gallery.summary), served from \(server.baseURL.absoluteString)\n")

            let requests = gallery.items.map {
                ImageRequest(url: server.url(for: $0.path), thumbnailPixelSize: thumbnail > 0 ? thumbnail : nil)
            }
            let first = ImagePipeline(configuration: .init(diskCache: try DiskCache(directory: cacheDirectory)))
            var passes = [try await DemoPass.run("1  cold: network", requests, first)]
            await first.waitForDiskWrites()
            passes.append(try await DemoPass.run("2  same pipeline", requests, first))
            let second = ImagePipeline(configuration: .init(diskCache: try DiskCache(directory: cacheDirectory)))
            passes.append(try await DemoPass.run("3  new pipeline, same disk", requests, second))

            print(DemoPass.table(passes))
            let counts = gallery.items.map { server.requestCount(for: $0.path) }
            let oneEach = counts.allSatisfy { $0 == 1 }
            print("\nServer requests: \(counts.reduce(0, +)) for \(counts.count) images"
                + (oneEach ? " (exactly one each)" : " (expected exactly one each)"))
            let expected: [ImageResponse.Source] = [.network, .memory, .disk]
            let wellSourced = zip(passes, expected).allSatisfy { pass, source in pass.count(source) == requests.count }
            try await server.shutdown()
            if !oneEach || !wellSourced {
                print("The demo did not behave as expected: see the table above.")
                throw ExitCode(1)
            }
        } catch {
            try? await server.shutdown()
            throw error
        }
    }
}

/// One pass of the demo: every request at once, timed, with where each response came from.
struct DemoPass {
    let name: String
    let sources: [ImageResponse.Source]
    let bytes: Int
    let duration: Duration

    static func run(_ name: String, _ requests: [ImageRequest], _ pipeline: ImagePipeline) async throws -> DemoPass {
        let clock = ContinuousClock()
        let start = clock.now
        let responses = try await withThrowingTaskGroup(of: ImageResponse.self) { group in
            for request in requests { group.addTask { try await pipeline.image(for: request) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        return DemoPass(
            name: name, sources: responses.map(\.source),
            bytes: responses.reduce(0) { $0 + ($1.encodedByteCount ?? 0) }, duration: clock.now - start)
    }

    func count(_ source: ImageResponse.Source) -> Int { sources.filter { $0 == source }.count }

    static func table(_ passes: [DemoPass]) -> String {
        let header = ["pass", "images", "memory", "disk", "network", "bytes read", "time"]
        let rows = passes.map { pass in
            [
                pass.name, "\(pass.sources.count)", "\(pass.count(.memory))", "\(pass.count(.disk))",
                "\(pass.count(.network))", pass.bytes == 0 ? "-" : ByteCount.format(pass.bytes),
                pass.duration.formatted(.units(allowed: [.seconds, .milliseconds, .microseconds], width: .abbreviated, maximumUnitCount: 1, fractionalPart: .show(length: 1))),
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                column == 0
                    ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }
}
