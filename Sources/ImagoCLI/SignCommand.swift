// The image proxy is Linux-only (Package.swift, README "imago serve").
#if os(Linux)
import ArgumentParser
import Foundation
import ImagoServer

/// `imago sign`: prints the signed proxy path for a source and options.
struct SignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print the signed `imago serve` path for a source URL and options.",
        discussion: """
            The key and salt come from IMAGO_KEY and IMAGO_SALT (hex) or --key-file, as for `imago serve`. \
            Pass the server's --preset and --only-presets too: the path is checked as that server will parse it. \
            Example: imago sign https://example.com/a.jpg --options rs:fill:300:200/dpr:2 --format webp
            """
    )

    @Argument(help: "The source image URL (http or https).")
    var source: String

    @Option(help: "Processing options, separated by /: rs:fit:300:200/dpr:2/q:80 (with --only-presets: preset names, separated by :).")
    var options = ""

    /// The server's presets, so that `pr:NAME` and only-presets paths are checked as it parses them.
    @OptionGroup var presets: PresetOptions

    @Option(help: "Output format as the path's extension: jpeg, png, webp, avif, jxl, gif or auto (none: auto).")
    var format: String?

    @Flag(help: "Encode the source as base64url instead of /plain/.")
    var base64 = false

    @Option(help: "File with IMAGO_KEY=… and IMAGO_SALT=… lines (hex).")
    var keyFile: String?

    func run() async throws {
        guard let url = URL(string: source), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()) else {
            throw ValidationError("the source must be an http or https URL, not \(source)")
        }
        let segments = options.split(separator: "/").map(String.init)
        let part = URLSigner.unsignedPart(options: segments, source: url, format: format, encodeSource: base64)
        // Check what the server will parse: the same options and source, with its presets.
        let presets = try self.presets.presets()
        do {
            let parsed = try ProcessingPath.parse("/_" + part, presets: presets)
            guard parsed.source.absoluteString == url.absoluteString else {
                throw ValidationError("the source does not survive encoding; report this as a bug")
            }
        } catch let error as ProcessingPathError {
            throw ValidationError(error.message)
        }
        let signer: URLSigner?
        do {
            signer = try URLSigner.load(file: keyFile)
        } catch {
            throw ValidationError("the signing key: \(error)")
        }
        guard let signer else {
            throw ValidationError("no signing key: set IMAGO_KEY and IMAGO_SALT (hex) or pass --key-file")
        }
        print("/" + signer.signature(for: part) + part)
    }
}
#endif
