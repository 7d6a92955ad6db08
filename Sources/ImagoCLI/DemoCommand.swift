import ArgumentParser
import Foundation
import Imago
import ImagoDemo

/// `imago demo`: the pipeline end to end on an embedded loopback server, no network needed.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serve a generated gallery on 127.0.0.1 and load it three times: network, memory, disk.",
        discussion: """
            Pass 1 loads every image over HTTP with a fresh disk cache (with a progress bar on a \
            terminal), pass 2 asks the same pipeline again (memory), pass 3 asks a new pipeline on \
            the same disk cache (disk). Every thumbnail of pass 1 goes into a contact sheet, a \
            labelled grid written to imago-demo/contact-sheet.png (see --output); its path is printed.

            Examples:
              imago demo
              imago demo --count 60 --thumbnail 128
              imago demo --json --output /tmp/sheet

            Exit status: 0 when every pass came from the right place, 1 if any pass came from the \
            wrong place or the server saw more than one request per image, 2 for a usage error \
            (including a contact sheet that cannot be written).
            """
    )

    @Option(name: [.customLong("count"), .customLong("images")], help: "Number of images in the gallery.")
    var count = 24

    @Option(help: "Longer side of the generated images, in pixels.")
    var size = 1024

    @Option(help: "Also make thumbnails of at most PIXELS (0 for full size; the contact sheet then uses 256).")
    var thumbnail = 256

    @Option(help: "Directory for the contact sheet.", completion: .directory)
    var output = "imago-demo"

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    /// Cell size of the contact sheet when images are loaded at full size.
    static let fullSizeCell = 256

    func validate() throws {
        guard (1...500).contains(count) else { throw ValidationError("--count takes 1 to 500.") }
        guard (16...4096).contains(size) else { throw ValidationError("--size takes 16 to 4096 pixels.") }
        guard (0...FetchCommand.thumbnailRange.upperBound).contains(thumbnail) else {
            throw ValidationError("--thumbnail takes 0 to \(FetchCommand.thumbnailRange.upperBound) pixels, not \(thumbnail).")
        }
    }

    func run() async throws {
        let gallery = try Gallery.make(count: count, longerSide: size)
        let server = try await DemoOrigin.start(serving: gallery)
        let cacheDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("imago-demo-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        do {
            if !json { print("Imago demo: \(gallery.summary), served from \(server.baseURL.absoluteString)\n") }

            let requests = gallery.items.map {
                ImageRequest(url: server.url(for: $0.path), maximumPixelSize: thumbnail > 0 ? thumbnail : nil)
            }
            let first = ImagePipeline(configuration: .init(diskCache: try DiskCache(directory: cacheDirectory)))
            let progress = ProgressBar(total: requests.count, label: "pass 1", enabled: !json)
            let cold = try await DemoPass.run("1  cold: network", requests, first, progress: progress)
            progress.finish()
            var passes = [cold]
            await first.waitForDiskWrites()
            passes.append(try await DemoPass.run("2  same pipeline", requests, first))
            let second = ImagePipeline(configuration: .init(diskCache: try DiskCache(directory: cacheDirectory)))
            passes.append(try await DemoPass.run("3  new pipeline, same disk", requests, second))

            let counts = gallery.items.map { server.requestCount(for: $0.path) }
            let oneEach = counts.allSatisfy { $0 == 1 }
            let expected: [ImageResponse.Source] = [.network, .memory, .disk]
            let wellSourced = zip(passes, expected).allSatisfy { pass, source in pass.count(source) == requests.count }
            try await server.shutdown()
            let sheet = try writeContactSheet(cold)

            if json {
                print(
                    JSONValue.object([
                        "images": .int(requests.count), "server_requests": .int(counts.reduce(0, +)),
                        "exactly_one_each": .bool(oneEach), "ok": .bool(oneEach && wellSourced),
                        "passes": .array(passes.map(\.json)), "contact_sheet": sheet.json,
                    ]).encoded())
            } else {
                print(DemoPass.table(passes))
                print("\nServer requests: \(counts.reduce(0, +)) for \(counts.count) images"
                    + (oneEach ? " (exactly one each)" : " (expected exactly one each)"))
                print("Contact sheet: \(sheet.path) (\(sheet.layout.width) x \(sheet.layout.height), "
                    + "\(sheet.layout.columns) x \(sheet.layout.rows) grid of \(requests.count) thumbnails)")
            }
            if !oneEach || !wellSourced {
                if !json { print("The demo did not behave as expected: see the table above.") }
                throw ExitCode(1)
            }
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    /// The contact sheet written, and where.
    struct WrittenSheet {
        let path: String
        let layout: ContactSheet.Layout

        var json: JSONValue {
            .object([
                "path": .string(path), "width": .int(layout.width), "height": .int(layout.height),
                "columns": .int(layout.columns), "rows": .int(layout.rows), "cell": .int(layout.cell),
                "padding": .int(layout.padding), "label_height": .int(layout.labelHeight), "count": .int(layout.count),
            ])
        }
    }

    /// Draws every image of `pass` into the contact sheet and writes it as PNG.
    private func writeContactSheet(_ pass: DemoPass) throws -> WrittenSheet {
        let thumbnails = try pass.responses.enumerated().map { index, response -> (bitmap: Bitmap, label: String) in
            let size = response.container.pixelSize
            return (
                bitmap: try response.container.bitmap(),
                label: "\(index + 1) \(response.format.description) \(size.width)x\(size.height)"
            )
        }
        let cell = thumbnail > 0 ? min(thumbnail, size) : Self.fullSizeCell
        let (bitmap, layout) = try ContactSheet.draw(thumbnails, cell: cell)
        let directory = URL(fileURLWithPath: output, isDirectory: true).standardizedFileURL
        let file = directory.appendingPathComponent("contact-sheet.png")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try PNGEncoder().encode(bitmap).write(to: file)
        } catch {
            throw CLIError.usage(
                "Cannot write the contact sheet \(file.path): \((error as NSError).localizedDescription). "
                    + "Pass --output with a writable directory.")
        }
        return WrittenSheet(path: file.path, layout: layout)
    }
}

/// One pass of the demo: every request at once, timed, with where each response came from.
struct DemoPass {
    let name: String
    /// The responses, in the order of the requests.
    let responses: [ImageResponse]
    let bytes: Int
    let duration: Duration

    var sources: [ImageResponse.Source] { responses.map(\.source) }

    static func run(
        _ name: String, _ requests: [ImageRequest], _ pipeline: ImagePipeline, progress: ProgressBar? = nil
    ) async throws -> DemoPass {
        let clock = ContinuousClock()
        let start = clock.now
        progress?.draw()
        let responses = try await withThrowingTaskGroup(of: (Int, ImageResponse).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { (index, try await pipeline.image(for: request)) }
            }
            var responses: [ImageResponse?] = Array(repeating: nil, count: requests.count)
            for try await (index, response) in group {
                responses[index] = response
                progress?.advance(bytes: response.encodedByteCount ?? 0)
            }
            return responses.compactMap { $0 }
        }
        return DemoPass(
            name: name, responses: responses,
            bytes: responses.reduce(0) { $0 + ($1.encodedByteCount ?? 0) }, duration: clock.now - start)
    }

    /// `{"name", "images", "memory", "disk", "network", "bytes", "ms"}`.
    var json: JSONValue {
        let components = duration.components
        let milliseconds = Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
        return .object([
            "name": .string(name), "images": .int(responses.count), "memory": .int(count(.memory)),
            "disk": .int(count(.disk)), "network": .int(count(.network)), "bytes": .int(bytes),
            "ms": .double((milliseconds * 10).rounded() / 10),
        ])
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
