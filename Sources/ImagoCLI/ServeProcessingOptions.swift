// The image proxy is Linux-only (Package.swift, README "imago serve").
#if os(Linux)
import ArgumentParser
import ImagoServer

/// `imago serve`'s flags for imgproxy's presets, its security options and the decoded-source
/// tier: one group, so `ServeCommand` only mounts it and applies it to the configuration.
struct ServeProcessingOptions: ParsableArguments {
    /// `--preset NAME=OPTIONS` and `--only-presets` (PresetOptions.swift).
    @OptionGroup var presets: PresetOptions

    @Flag(help: "Let paths set max_src_resolution and max_src_file_size (they can only lower the server's limits).")
    var allowSecurityOptions = false

    @Option(help: "Megabytes of decoded sources kept in memory, so later sizes of a source need no decode (0: off).")
    var decodedCacheMb = 256

    func validate() throws {
        guard (0...65_536).contains(decodedCacheMb) else { throw ValidationError("--decoded-cache-mb takes 0 to 65536.") }
    }

    /// Sets the presets, the security options and the decoded tier's size in `configuration`.
    func apply(to configuration: inout ImageProxyConfiguration) throws {
        configuration.presets = try presets.presets()
        configuration.allowsSecurityOptions = allowSecurityOptions
        configuration.decodedSourceBytes = decodedCacheMb * 1024 * 1024
    }
}
#endif
