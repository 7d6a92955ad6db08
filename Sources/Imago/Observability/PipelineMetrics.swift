import Metrics

/// The pipeline's swift-metrics instruments, made once per pipeline. Names carry an `imago_`
/// prefix; dimensions say which layer or which error.
///
/// - `imago_cache_lookups_total{layer=memory|disk, result=hit|miss}`
/// - `imago_downloaded_bytes_total`
/// - `imago_download_duration_seconds`, `imago_decode_duration_seconds`
/// - `imago_errors_total{code=…}` (the error's ``ImagePipeline/Error/code``)
/// - `imago_preview_decodes_total` (started), `imago_previews_total` (shown)
struct PipelineMetrics: Sendable {
    let memoryHits: Counter
    let memoryMisses: Counter
    let diskHits: Counter
    let diskMisses: Counter
    let downloadedBytes: Counter
    let downloadDuration: Timer
    let decodeDuration: Timer
    let previewDecodes: Counter
    let previewsShown: Counter
    private let label: String
    private let factory: any MetricsFactory

    /// Instruments named `<label>_…`, made by `factory` (the process-wide `MetricsSystem.factory`
    /// when `nil`).
    init(label: String = "imago", factory: (any MetricsFactory)? = nil) {
        let factory = factory ?? MetricsSystem.factory
        self.label = label
        self.factory = factory
        func lookups(_ layer: String, _ result: String) -> Counter {
            Counter(label: "\(label)_cache_lookups_total", dimensions: [("layer", layer), ("result", result)], factory: factory)
        }
        memoryHits = lookups("memory", "hit")
        memoryMisses = lookups("memory", "miss")
        diskHits = lookups("disk", "hit")
        diskMisses = lookups("disk", "miss")
        downloadedBytes = Counter(label: "\(label)_downloaded_bytes_total", factory: factory)
        downloadDuration = Timer(label: "\(label)_download_duration_seconds", factory: factory)
        decodeDuration = Timer(label: "\(label)_decode_duration_seconds", factory: factory)
        previewDecodes = Counter(label: "\(label)_preview_decodes_total", factory: factory)
        previewsShown = Counter(label: "\(label)_previews_total", factory: factory)
    }

    /// Counts one failure under its error code.
    func recordError(_ error: ImagePipeline.Error) {
        Counter(label: "\(label)_errors_total", dimensions: [("code", error.code)], factory: factory).increment()
    }
}
