import ArgumentParser
import Foundation
import Imago

/// `imago inspect FILE|URL`: what an image's header declares, without decoding its pixels.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show an image's format, size, frames, orientation, colour model, bit depth, colour profile and HDR gain map.",
        discussion: """
            Reads the header and container structure only (PNG chunks, JPEG frame header, GIF \
            blocks, WebP chunks, HEIF/AVIF boxes); no pixel is decoded. A figure the file does not \
            state is shown as "not stated" (null with --json).

            Examples:
              imago inspect photo.jpg
              imago inspect https://example.com/animation.gif --json

            Exit status: 0 when the header was read, 1 when the bytes are not an image Imago \
            recognises or the download failed, 2 for a usage error (including a file that cannot \
            be read).
            """
    )

    @Argument(help: "A file path, or an http or https URL.", completion: .file())
    var source: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() async throws {
        let data = try await load()
        guard let details = ImageHeader.details(data) else {
            let format = ImageFormat.sniff(data).map { "it looks like \($0), but its header is damaged or cut short" }
                ?? "its first bytes match no format Imago reads (JPEG, PNG, GIF, WebP, HEIF, AVIF)"
            throw CLIError(message: "\(source) is not an image Imago can inspect: \(format).", status: 1)
        }
        let header = details.header
        if json {
            print(
                JSONValue.object([
                    "source": .string(source), "bytes": .int(data.count), "format": .string(header.format.rawValue),
                    "width": .int(header.width), "height": .int(header.height),
                    "frames": details.frameCount.map(JSONValue.int) ?? .null,
                    "orientation": details.orientation.map(JSONValue.int) ?? .null,
                    "color_model": details.colorModel.map(JSONValue.string) ?? .null,
                    "bit_depth": details.bitDepth.map(JSONValue.int) ?? .null,
                    "has_alpha": details.hasAlpha.map(JSONValue.bool) ?? .null,
                    "color_declaration": details.colorDeclaration.map(JSONValue.string) ?? .null,
                    "color_profile": details.colorProfile.map { profile in
                        .object([
                            "name": profile.name.map(JSONValue.string) ?? .null,
                            "color_space": .string(profile.colorSpace.rawValue), "version": .string(profile.version),
                            "bytes": .int(profile.data.count),
                        ])
                    } ?? .null,
                    "color_problem": details.colorProblem.map(JSONValue.string) ?? .null,
                    "gain_map": details.gainMap.map { map in
                        .object([
                            "width": .int(map.pixelSize.width), "height": .int(map.pixelSize.height),
                            "headroom_stops": .double(map.metadata.alternateHeadroom),
                            "base_headroom_stops": .double(map.metadata.baseHeadroom),
                            "maximum_content_boost": .double(map.metadata.maximumContentBoost),
                            "channels": .int(map.metadata.channels.count),
                            "metadata": .array(map.metadata.sources.map(\.rawValue).sorted().map(JSONValue.string)),
                        ])
                    } ?? .null,
                    "gain_map_problem": details.gainMapProblem.map(JSONValue.string) ?? .null,
                ]).encoded())
            return
        }
        let notStated = "not stated"
        let rows: [(String, String)] = [
            ("source", source),
            ("format", header.format.description),
            ("size", "\(header.width) x \(header.height) pixels"),
            ("frames", details.frameCount.map(String.init) ?? notStated),
            ("orientation", details.orientation.map { "\($0) (\(Self.orientationName($0)))" } ?? notStated),
            ("colour", details.colorModel ?? notStated),
            ("bit depth", details.bitDepth.map { "\($0) bits per \(details.colorModel == "indexed" ? "index" : "channel")" } ?? notStated),
            ("alpha", details.hasAlpha.map { $0 ? "yes" : "no" } ?? notStated),
            ("profile", Self.describeColor(details)),
            ("gain map", Self.describeGainMap(details)),
            ("bytes", ByteCount.format(data.count)),
        ]
        for (name, value) in rows { print(name.padding(toLength: 12, withPad: " ", startingAt: 0) + value) }
    }

    /// The bytes of the file or URL.
    private func load() async throws -> Data {
        if let url = URL(string: source), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            let pipeline = ImagePipeline(configuration: .init(memoryCache: nil, diskCache: nil))
            do throws(ImagePipeline.Error) {
                return try await pipeline.data(for: ImageRequest(url: url)).data
            } catch {
                throw CLIError(
                    message: "Cannot download \(source): \(error.description) Check the URL, or download it and inspect the file.",
                    status: 1)
            }
        }
        let path = source.hasPrefix("file://") ? (URL(string: source)?.path ?? source) : source
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw CLIError.usage(
                "Cannot read \(path): \((error as NSError).localizedDescription). Give an image file's path, or an http or https URL.")
        }
    }

    /// `"Display P3" (ICC 4.0, rgb, 536 B), converted to sRGB when decoded`, or what else the file declares.
    static func describeColor(_ details: ImageHeader.Details) -> String {
        if let problem = details.colorProblem { return "unusable, read as sRGB: \(problem)" }
        if let profile = details.colorProfile { return "\(profile), converted to sRGB when decoded" }
        if let declaration = details.colorDeclaration {
            return declaration == "sRGB chunk" ? "sRGB (sRGB chunk)" : "\(declaration), converted to sRGB when decoded"
        }
        return "none (sRGB)"
    }

    /// `16 x 12 pixels, headroom 5.62 stops, up to 49.18x brighter (hdrgm XMP, ISO 21496-1)`, or
    /// why a declared map is not used, or `none`.
    static func describeGainMap(_ details: ImageHeader.Details) -> String {
        if let problem = details.gainMapProblem { return "unusable, the SDR base is shown: \(problem)" }
        guard let map = details.gainMap else { return "none" }
        let metadata = map.metadata
        let sources = metadata.sources.map(\.rawValue).sorted().joined(separator: ", ")
        let headroom = String(format: "%.2f", metadata.alternateHeadroom)
        let boost = String(format: "%.2f", metadata.maximumContentBoost)
        return "\(map.pixelSize.width) x \(map.pixelSize.height) pixels, headroom \(headroom) stops, up to \(boost)x brighter (\(sources))"
    }

    static func orientationName(_ value: Int) -> String {
        switch value {
        case 1: "up"
        case 2: "up, mirrored"
        case 3: "rotated 180°"
        case 4: "down, mirrored"
        case 5: "left, mirrored"
        case 6: "rotated 90° clockwise"
        case 7: "right, mirrored"
        case 8: "rotated 90° counter-clockwise"
        default: "unknown"
        }
    }
}
