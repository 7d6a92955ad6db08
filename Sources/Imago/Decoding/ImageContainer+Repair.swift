extension ImageContainer {
    /// One repair a lenient decode made to show a damaged image the way a browser does.
    ///
    /// An image decoded under ``DecodingPolicy/lenient`` lists them in ``ImageContainer/repairs``
    /// (empty for a clean decode); the pipeline logs them once at `notice` and `imago fetch --json`
    /// reports them, so a damaged source is never passed off as a clean one.
    public struct Repair: Sendable, Hashable, CustomStringConvertible {
        /// What was repaired.
        public enum Kind: Sendable, Hashable {
            /// These rows of the image did not decode and are filled (transparent for PNG and GIF,
            /// libjpeg's grey for JPEG).
            case missingRows(Range<Int>)
            /// An animation was cut short: `kept` complete frames of `of` (`nil` when the file does
            /// not say how many it had).
            case framesKept(kept: Int, of: Int?)
            /// A frame's image data ended `count` pixels early; those pixels are transparent. `frame`
            /// counts from 0; the description counts from 1 ("frame 1: 12 pixels missing").
            case missingPixels(frame: Int, count: Int)
            /// A checksum (a PNG chunk CRC, a zlib Adler-32) did not match and was ignored.
            case ignoredChecksum
            /// The data was corrupt in a way the decoder skipped over, in its own words.
            case corruptData(String)
            /// The colour profile (or colour tags) the file declares could not be used, for the reason
            /// given: the pixels are read as sRGB, as browsers do.
            case ignoredColorProfile(String)
            /// The file declares an HDR gain map that could not be used, for the reason given: the
            /// image is its SDR base alone (``ImageContainer/gainMap`` is `nil`).
            case ignoredGainMap(String)
        }

        /// What was repaired.
        public var kind: Kind

        public init(_ kind: Kind) {
            self.kind = kind
        }

        /// One line: "rows 412–767 missing", "3 frames of 8 kept".
        public var description: String {
            switch kind {
            case .missingRows(let rows):
                rows.count == 1 ? "row \(rows.lowerBound) missing" : "rows \(rows.lowerBound)–\(rows.upperBound - 1) missing"
            case .framesKept(let kept, let total):
                "\(kept) frame\(kept == 1 ? "" : "s")" + (total.map { " of \($0)" } ?? "") + " kept"
            case .missingPixels(let frame, let count):
                "frame \(frame + 1): \(count) pixel\(count == 1 ? "" : "s") missing"
            case .ignoredChecksum:
                "checksum mismatch ignored"
            case .corruptData(let detail):
                "corrupt data: \(detail)"
            case .ignoredColorProfile(let reason):
                "colour profile ignored, read as sRGB: \(reason)"
            case .ignoredGainMap(let reason):
                "gain map ignored, SDR base only: \(reason)"
            }
        }
    }
}
