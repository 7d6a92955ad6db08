import Foundation

/// Finds the gain map of a JPEG and reads its metadata, without decoding any pixels.
///
/// The primary image's segments (before its first scan) give the MPF index of the images in the
/// file, and the signs that a gain map follows (an ISO 21496-1 version segment, an `hdrgm:Version`
/// in the XMP). The gain map is the first image after the primary one whose own segments carry gain
/// map metadata: ISO 21496-1 (preferred) or `hdrgm` XMP. A file with neither sign nor such an image
/// has no gain map (``Outcome/none``); a file that declares one but whose index or metadata cannot
/// be used is ``Outcome/ignored(_:)`` with the reason, and its base decodes alone.
enum JPEGGainMapReader {
    /// A gain map found: where its JPEG lies in the file, and what its metadata says.
    struct Found: Equatable {
        var range: Range<Int>
        var metadata: GainMap.Metadata
    }

    /// What a file says about a gain map.
    enum Outcome: Equatable {
        /// None: no sign of one.
        case none
        /// One, with its metadata.
        case found(Found)
        /// The file declares one that cannot be used, for this reason.
        case ignored(GainMapProblem)
    }

    /// The most segments read before a scan; a real header has a few dozen.
    static let maximumSegments = 512

    static func read(_ data: Data) -> Outcome {
        data.withUnsafeBytes { read($0.bindMemory(to: UInt8.self)) }
    }

    static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
        guard let primary = Segments(bytes) else { return .none }
        let declared = primary.hasISOVersion || primary.xmp.map(GainMapXMP.declaresVersion) == true
        guard let mpf = primary.mpf else {
            return declared ? .ignored(GainMapProblem("the file declares a gain map but has no MPF segment listing its images")) : .none
        }
        let images: [Range<Int>]
        switch MPFIndex.images(mpf.body, tiffStart: mpf.start, fileSize: bytes.count) {
        case .success(let found): images = found
        case .failure(let problem): return declared ? .ignored(problem) : .none
        }
        for range in images.dropFirst() {
            guard let image = Segments(UnsafeBufferPointer(rebasing: bytes[range])) else { continue }
            switch image.metadata() {
            case nil: continue
            case .success(let metadata)?: return .found(Found(range: range, metadata: metadata))
            case .failure(let problem)?: return .ignored(problem)
            }
        }
        return declared ? .ignored(GainMapProblem("the MPF index lists no image with gain map metadata")) : .none
    }

    /// What one image's segments before its first scan hold.
    private struct Segments {
        /// The MPF segment's bytes after `MPF\0`, and where they start in the file.
        var mpf: (body: ArraySlice<UInt8>, start: Int)?
        var hasISOVersion = false
        var iso: Result<GainMapISOMetadata.Reading, GainMapProblem>?
        var xmp: String?

        /// Nil when `bytes` does not start a JPEG.
        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            var reader = JPEGSegmentReader(bytes)
            guard reader.readStartOfImage() else { return nil }
            for _ in 0..<JPEGGainMapReader.maximumSegments {
                guard case .success(let segment) = reader.next(), segment.marker != 0xDA, segment.marker != 0xD9 else { break }
                let body = segment.body
                if segment.marker == 0xE2, mpf == nil, body.starts(with: MPFIndex.identifier) {
                    let offset = segment.end - body.count + MPFIndex.identifier.count
                    mpf = (Array(body)[MPFIndex.identifier.count...], offset)
                } else if segment.marker == 0xE2, iso == nil, body.starts(with: GainMapISOMetadata.identifier) {
                    let reading = GainMapISOMetadata.read(Array(body)[GainMapISOMetadata.identifier.count...])
                    if case .success(.versionOnly) = reading {} else { iso = reading }
                    hasISOVersion = true
                } else if segment.marker == 0xE1, xmp == nil, body.starts(with: GainMapXMP.identifier) {
                    xmp = String(decoding: UnsafeBufferPointer(rebasing: body[GainMapXMP.identifier.count...]), as: UTF8.self)
                }
            }
        }

        /// The gain map metadata of this image: ISO 21496-1 when it reads, else `hdrgm` XMP;
        /// `nil` when it has neither.
        func metadata() -> Result<GainMap.Metadata, GainMapProblem>? {
            let fromXMP = xmp.flatMap(GainMapXMP.read)
            switch iso {
            case .success(.metadata(var metadata))?:
                if case .success? = fromXMP { metadata.sources.insert(.hdrgmXMP) }
                return .success(metadata)
            case .failure(let problem)?:
                if case .success? = fromXMP { return fromXMP }
                return .failure(problem)
            case .success(.versionOnly)?, nil:
                return fromXMP
            }
        }
    }
}
