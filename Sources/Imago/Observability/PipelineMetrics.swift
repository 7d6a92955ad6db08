import Metrics

/// The pipeline's swift-metrics instruments, made once per pipeline. Names carry an `imago_`
/// prefix; dimensions say which layer or which error.
///
/// - `imago_cache_lookups_total{layer=memory|disk, result=hit|miss}`
/// - `imago_downloaded_bytes_total`
/// - `imago_download_duration_seconds`, `imago_decode_duration_seconds`
/// - `imago_errors_total{code=…}` (the error's ``ImagePipeline/Error/code``)
struct PipelineMetrics: Sendable {
    let memoryHits: Counter
    let memoryMisses: Counter
    let diskHits: Counter
    let diskMisses: Counter
    let downloadedBytes: Counter
    let downloadDuration: Timer
    let decodeDuration: Timer
    private let label: String

    init(label: String = "imago") {
        self.label = label
        memoryHits = Counter(label: "\(label)_cache_lookups_total", dimensions: [("layer", "memory"), ("result", "hit")])
        memoryMisses = Counter(label: "\(label)_cache_lookups_total", dimensions: [("layer", "memory"), ("result", "miss")])
        diskHits = Counter(label: "\(label)_cache_lookups_total", dimensions: [("layer", "disk"), ("result", "hit")])
        diskMisses = Counter(label: "\(label)_cache_lookups_total", dimensions: [("layer", "disk"), ("result", "miss")])
        downloadedBytes = Counter(label: "\(label)_downloaded_bytes_total")
        downloadDuration = Timer(label: "\(label)_download_duration_seconds")
        decodeDuration = Timer(label: "\(label)_decode_duration_seconds")
    }

    /// Counts one failure under its error code.
    func recordError(_ error: ImagePipeline.Error) {
        Counter(label: "\(label)_errors_total", dimensions: [("code", error.code)]).increment()
    }
}
