#if os(Linux)
import Foundation
import Glibc
import Logging

/// The memory figures `imago serve` logs after each processed request with
/// `IMGPROXY_LOG_MEM_STATS` (``ImagoServer/Configuration/logsMemoryStatistics``), in bytes. imgproxy
/// logs Go's heap and libvips' allocations at that name; these are the figures of this server.
struct MemoryStatistics: Equatable {
    /// The process's resident set (`/proc/self/statm`); 0 when it cannot be read.
    var residentBytes: Int
    /// Pixels in the pipeline's tier of decoded originals, and its entries.
    var decodedTierBytes: Int
    var decodedTierEntries: Int
    /// Pixels held by decodes under way (their headers' estimate).
    var decodingBytes: Int
    /// Encoded responses in the proxy's memory cache.
    var responseCacheBytes: Int
    /// Large response bodies on their way to clients (``ResponseBytesInFlight``).
    var responseBytesInFlight: Int

    /// The figures now.
    init(proxy: ImageProxy, inFlight: ResponseBytesInFlight) {
        let statistics = proxy.pipeline.statistics()
        residentBytes = Self.residentBytes() ?? 0
        decodedTierBytes = statistics.decodedOriginalsCost
        decodedTierEntries = statistics.decodedOriginalsCount
        decodingBytes = statistics.decodingBytes
        responseCacheBytes = proxy.responseCacheBytes
        responseBytesInFlight = inFlight.bytesInFlight
    }

    /// The line's fields, as `key=value` metadata.
    var metadata: Logger.Metadata {
        [
            "resident_bytes": "\(residentBytes)", "decoded_tier_bytes": "\(decodedTierBytes)",
            "decoded_tier_entries": "\(decodedTierEntries)", "decoding_bytes": "\(decodingBytes)",
            "response_cache_bytes": "\(responseCacheBytes)", "response_in_flight_bytes": "\(responseBytesInFlight)",
        ]
    }

    /// Logs them at debug level (not computed when `logger` would drop the line).
    static func log(to logger: Logger, proxy: ImageProxy, inFlight: ResponseBytesInFlight) {
        guard logger.logLevel <= .debug else { return }
        logger.debug("memory usage", metadata: MemoryStatistics(proxy: proxy, inFlight: inFlight).metadata)
    }

    /// The resident set: `/proc/self/statm`'s second field, in pages.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        let (bytes, overflow) = pages.multipliedReportingOverflow(by: Int(sysconf(Int32(_SC_PAGESIZE))))
        return overflow ? nil : bytes
    }
}
#endif
