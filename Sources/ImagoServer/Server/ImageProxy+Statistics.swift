#if os(Linux)
import Imago

extension ImageProxy {
    /// Requests running and waiting for a slot.
    public var admissionCounts: (running: Int, waiting: Int) { admission.counts }

    /// Sources decoded since start (the pipeline's ``ImagePipeline/Statistics/decodeCount``).
    public var decodeCount: Int { pipeline.statistics().decodeCount }

    /// Bytes of encoded responses in the proxy's memory cache.
    package var responseCacheBytes: Int { responses.totalCost }

    /// Bytes and entries in the decoded tier (the pipeline's tier of decoded originals).
    public var decodedTierTotals: (bytes: Int, count: Int) {
        let statistics = pipeline.statistics()
        return (statistics.decodedOriginalsCost, statistics.decodedOriginalsCount)
    }
}
#endif
