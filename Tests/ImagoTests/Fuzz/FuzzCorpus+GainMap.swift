import Foundation

@testable import Imago

extension FuzzCorpus {
    /// Fuzz/gain-map/Harness.swift: the gain map readers: `JPEGGainMapReader` on the bytes as a file (the MPF
    /// index, the segments of each listed image), the ISO 21496-1 and `hdrgm` XMP readers on the
    /// raw bytes, then (Linux) the whole decode with its map at a scale taken from the last byte.
    /// What is found must lie in the file and be valid metadata; a decoded map is never larger
    /// than its base. The same calls as Fuzz/Common/FuzzTarget+GainMap.swift, for the replay of its corpus.
    static func gainMap(_ data: Data) {
        if case .found(let found) = JPEGGainMapReader.read(data) {
            precondition(found.range.lowerBound >= 0 && found.range.upperBound <= data.count && found.range.count >= 2, "a gain map outside the file")
            precondition(found.metadata.problem == nil, "gain map metadata found valid that is not")
        }
        if case .success(.metadata(let metadata)) = GainMapISOMetadata.read(ArraySlice(data)) {
            precondition(metadata.problem == nil && (metadata.channels.count == 1 || metadata.channels.count == 3), "invalid ISO metadata read")
        }
        if case .success(let metadata)? = GainMapXMP.read(String(decoding: data.prefix(65_536), as: UTF8.self)) {
            precondition(metadata.problem == nil, "invalid hdrgm metadata read")
        }
        #if os(Linux)
        guard ImageFormat.sniff(data) == .jpeg else { return }
        let target = data.last.map { Int($0) % 4 == 0 ? nil : Int($0) } ?? nil
        guard let container = try? ImageDecoder.decode(data, limits: limits, maximumPixelSize: target), let map = container.gainMap else { return }
        let base = container.pixelSize
        precondition(map.bitmap.width >= 1 && map.bitmap.height >= 1, "an empty gain map")
        precondition(max(map.bitmap.width, map.bitmap.height) <= max(base.width, base.height), "a gain map larger than its image")
        precondition(map.bitmap.pixels.count == map.bitmap.width * map.bitmap.height * Bitmap.bytesPerPixel, "a gain map of the wrong byte count")
        #endif
    }
}
