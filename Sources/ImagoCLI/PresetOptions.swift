// The image proxy is Linux-only (Package.swift, README "imago serve").
#if os(Linux)
import ArgumentParser
import ImagoServer

/// imgproxy's presets as `imago serve` takes them, and as `imago sign` must know them to check a
/// path the server will parse: one group, so the two read the same flags the same way.
struct PresetOptions: ParsableArguments {
    @Option(
        name: .customLong("preset"),
        help: "A preset paths can name with pr:NAME, as NAME=OPTIONS (options joined by /, e.g. thumb=rs:fill:300:200/q:70); repeat for more; a preset named default applies to every path.")
    var definitions: [String] = []

    @Flag(help: "Paths name presets only: /SIGNATURE/NAME:NAME…/SOURCE (imgproxy's IMGPROXY_ONLY_PRESETS).")
    var onlyPresets = false

    func validate() throws {
        if onlyPresets, definitions.isEmpty { throw ValidationError("--only-presets needs at least one --preset.") }
    }

    /// The presets these flags define.
    /// - Throws: `ValidationError` naming the preset that does not parse.
    func presets() throws -> ProcessingPresets {
        do {
            return try ProcessingPresets(definitions: definitions, onlyPresets: onlyPresets)
        } catch {
            throw ValidationError("--preset: \(error.message)")
        }
    }
}
#endif
