import Foundation

extension JPEGGainMapReader {
    /// Decodes the HDR gain map of `data` into `container`, or lists in its repairs why a gain map
    /// the file declares was not kept (``ImageContainer/Repair/Kind/ignoredGainMap(_:)``). Every
    /// platform goes through here; only the JPEG decode of the map is its own.
    ///
    /// `decodeMap` gets the map's bytes and the declared headers of the base and of the map, and
    /// returns the map at the scale the base was decoded at, as stored: its values are gains, not
    /// colours, so nothing is converted. The map is then turned by the base image's EXIF
    /// orientation, which it shares. A map larger than the base is not kept.
    static func attach(
        from data: Data, to container: inout ImageContainer,
        decodeMap: (_ map: Data, _ baseHeader: ImageHeader, _ mapHeader: ImageHeader) -> Result<Bitmap, GainMapProblem>
    ) {
        func ignore(_ problem: GainMapProblem) {
            container.repairs.append(ImageContainer.Repair(.ignoredGainMap(problem.description)))
        }
        let found: Found
        switch read(data) {
        case .none: return
        case .ignored(let problem): return ignore(problem)
        case .found(let value): found = value
        }
        guard let base = ImageHeader.probe(data), let (mapData, map) = found.mapImage(in: data) else {
            return ignore(GainMapProblem(Found.unreadableHeader))
        }
        guard max(map.width, map.height) <= max(base.width, base.height), min(map.width, map.height) <= min(base.width, base.height) else {
            return ignore(GainMapProblem("the gain map (\(map.width)x\(map.height)) is larger than the image (\(base.width)x\(base.height))"))
        }
        switch decodeMap(mapData, base, map) {
        case .success(let bitmap):
            let orientation = EXIFOrientation(jpeg: data) ?? .up
            container.gainMap = GainMap(bitmap: orientation.apply(to: bitmap), metadata: found.metadata)
        case .failure(let problem):
            ignore(problem)
        }
    }
}

extension JPEGGainMapReader.Found {
    /// Why a found map is not used when its image has no JPEG header.
    static let unreadableHeader = "the gain map image has no readable JPEG header"

    /// The map's own JPEG, cut from `data` (the bytes the reader read: its ranges lie within them,
    /// counted from their first), and the header it declares; nil when it declares none.
    func mapImage(in data: Data) -> (data: Data, header: ImageHeader)? {
        let bytes = data.subdata(in: (data.startIndex + range.lowerBound)..<(data.startIndex + range.upperBound))
        guard let header = ImageHeader.probe(bytes), header.format == .jpeg else { return nil }
        return (bytes, header)
    }
}
