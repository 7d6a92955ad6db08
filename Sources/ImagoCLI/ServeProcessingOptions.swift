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

    @Option(help: "Folder local:///path sources are read from (imgproxy's IMGPROXY_LOCAL_FILESYSTEM_ROOT; none: local sources answer 404).")
    var localFilesystemRoot: String?

    @Flag(help: "Cache-Control follows the source's freshness (imgproxy's IMGPROXY_CACHE_CONTROL_PASSTHROUGH).")
    var cacheControlPassthrough = false

    func validate() throws {
        guard (0...65_536).contains(decodedCacheMb) else { throw ValidationError("--decoded-cache-mb takes 0 to 65536.") }
    }

    /// Sets the presets, the security options, the `Cache-Control` passthrough and the decoded
    /// tier's size in `configuration`; a flag wins over its `IMGPROXY_*` variable in `environment`
    /// (`--preset`s replace `IMGPROXY_PRESETS` as a whole).
    func apply(to configuration: inout ImageProxyConfiguration, environment: ServeEnvironment) throws {
        if presets.definitions.isEmpty, !environment.presets.isEmpty {
            do {
                configuration.presets = try ProcessingPresets(
                    definitions: environment.presets, onlyPresets: presets.onlyPresets || environment.onlyPresets == true)
            } catch {
                throw ValidationError("the environment: IMGPROXY_PRESETS \(error.message)")
            }
        } else {
            configuration.presets = try presets.presets()
            if environment.onlyPresets == true, !presets.definitions.isEmpty { configuration.presets.onlyPresets = true }
        }
        configuration.allowsSecurityOptions = allowSecurityOptions || environment.allowsSecurityOptions == true
        if cacheControlPassthrough { configuration.passesCacheControlThrough = true }
        configuration.decodedSourceBytes = decodedCacheMb * 1024 * 1024
    }
}
#endif
