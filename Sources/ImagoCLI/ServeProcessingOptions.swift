import ArgumentParser
import ImagoServer

/// `imago serve`'s flags for imgproxy's presets, its security options and the decoded-source
/// tier: one group, so `ServeCommand` only mounts it and applies it to the configuration.
struct ServeProcessingOptions: ParsableArguments {
    @Option(
        name: .customLong("preset"),
        help: "A preset paths can name with pr:NAME, as NAME=OPTIONS (options joined by /, e.g. thumb=rs:fill:300:200/q:70); repeat for more; a preset named default applies to every path.")
    var presets: [String] = []

    @Flag(help: "Paths name presets only: /SIGNATURE/NAME:NAME…/SOURCE (imgproxy's IMGPROXY_ONLY_PRESETS).")
    var onlyPresets = false

    @Flag(help: "Let paths set max_src_resolution and max_src_file_size (they can only lower the server's limits).")
    var allowSecurityOptions = false

    @Option(help: "Megabytes of decoded sources kept in memory, so later sizes of a source need no decode (0: off).")
    var decodedCacheMb = 256

    func validate() throws {
        guard (0...65_536).contains(decodedCacheMb) else { throw ValidationError("--decoded-cache-mb takes 0 to 65536.") }
        if onlyPresets, presets.isEmpty { throw ValidationError("--only-presets needs at least one --preset.") }
    }

    /// Sets the presets, the security options and the decoded tier's size in `configuration`.
    func apply(to configuration: inout ImageProxyConfiguration) throws {
        do {
            configuration.presets = try ProcessingPresets(definitions: presets, onlyPresets: onlyPresets)
        } catch {
            throw ValidationError("--preset: \(error.message)")
        }
        configuration.allowsSecurityOptions = allowSecurityOptions
        configuration.decodedSourceBytes = decodedCacheMb * 1024 * 1024
    }
}
