import Foundation

/// An HDR gain map carried beside an image's SDR base (``ImageContainer/gainMap``): its own small
/// bitmap and the metadata that says how to apply it.
///
/// Phones and browsers show the HDR rendition of such a photograph by boosting each base pixel by
/// the map: `log2 boost = mix(gainMapMin, gainMapMax, map^(1/gamma))`, weighted by how much of
/// ``Metadata/alternateHeadroom`` the display has (Adobe/Google Ultra HDR, ISO 21496-1). The map is
/// image data, not metadata: it is read from the JPEG (the second image of its MPF list, described
/// by ISO 21496-1 and/or `hdrgm` XMP metadata), decoded at the same reduction as the base when a
/// thumbnail is asked, and given the same geometry by the processors that change it (resize,
/// thumbnail, crop, rotate, padding: the border padding adds shows no gain). A processor that
/// changes tones, or one that does not say what it does to a map (any custom processor), drops it.
/// See ``ImageContainer/gainMap``.
public struct GainMap: Sendable, Hashable, CustomStringConvertible {
    /// The map's pixels, opaque RGBA: grey (R = G = B) for a single-channel map, one gain per
    /// colour channel for a multichannel one. Usually smaller than the base (libultrahdr writes a
    /// quarter of each side); it covers the whole base image, whatever its size.
    public var bitmap: Bitmap
    /// How the map's values become gains.
    public var metadata: Metadata

    /// A gain map of `bitmap` described by `metadata`.
    public init(bitmap: Bitmap, metadata: Metadata) {
        self.bitmap = bitmap
        self.metadata = metadata
    }

    /// The map's size in pixels.
    public var pixelSize: PixelSize { PixelSize(width: bitmap.width, height: bitmap.height) }

    /// `gain map 16x12, headroom 5.62 stops (ISO 21496-1)`.
    public var description: String {
        let stops = (metadata.alternateHeadroom * 100).rounded() / 100
        let sources = metadata.sources.map(\.rawValue).sorted().joined(separator: ", ")
        return "gain map \(pixelSize), headroom \(stops) stops (\(sources))"
    }
}

extension GainMap {
    /// How a gain map's values become gains, as ISO 21496-1 states it; `hdrgm` XMP says the same
    /// in other words (below). Gains, gain limits and headrooms are in stops (log2), as both
    /// formats store them.
    public struct Metadata: Sendable, Hashable {
        /// The parameters of one colour channel of the map.
        public struct Channel: Sendable, Hashable {
            /// The log2 gain a map value of 0 stands for (`hdrgm:GainMapMin`). Default: 0.
            public var gainMapMin: Double
            /// The log2 gain a map value of 1 stands for (`hdrgm:GainMapMax`).
            public var gainMapMax: Double
            /// The gamma the map's values were encoded with (`hdrgm:Gamma`). Default: 1.
            public var gamma: Double
            /// Added to the base rendition's linear values before the gain (`hdrgm:OffsetSDR`
            /// when the base is SDR). Default (hdrgm): 1/64.
            public var baseOffset: Double
            /// Added to the alternate rendition's linear values (`hdrgm:OffsetHDR` when the
            /// base is SDR). Default (hdrgm): 1/64.
            public var alternateOffset: Double

            /// A channel with these parameters.
            public init(gainMapMin: Double = 0, gainMapMax: Double, gamma: Double = 1, baseOffset: Double = 1.0 / 64, alternateOffset: Double = 1.0 / 64) {
                self.gainMapMin = gainMapMin
                self.gainMapMax = gainMapMax
                self.gamma = gamma
                self.baseOffset = baseOffset
                self.alternateOffset = alternateOffset
            }
        }

        /// Where the metadata was read from.
        public enum Source: String, Sendable, Hashable, CaseIterable {
            /// The binary ISO 21496-1 metadata (`APP2` `urn:iso:std:iso:ts:21496:-1`).
            case iso21496 = "ISO 21496-1"
            /// Adobe's `hdrgm` XMP (`http://ns.adobe.com/hdr-gain-map/1.0/`), as Ultra HDR writes it.
            case hdrgmXMP = "hdrgm XMP"
        }

        /// One channel for a single-channel map, or red, green and blue.
        public var channels: [Channel]
        /// The display headroom (log2 of peak over SDR white) at or below which the base rendition
        /// is shown unchanged (`hdrgm:HDRCapacityMin` for an SDR base).
        public var baseHeadroom: Double
        /// The display headroom at or above which the alternate rendition is shown in full
        /// (`hdrgm:HDRCapacityMax` for an SDR base).
        public var alternateHeadroom: Double
        /// Whether the base image is the HDR rendition and the map leads down to SDR
        /// (`hdrgm:BaseRenditionIsHDR`, ISO's backward direction). Default: false.
        public var baseRenditionIsHDR: Bool
        /// Whether the gains apply in the base image's colour space (ISO's
        /// `use_base_colour_space`; `hdrgm` always does). Default: true.
        public var usesBaseColorSpace: Bool
        /// Which metadata the file carried for the map. When it has both, the values are ISO
        /// 21496-1's (libultrahdr reads it first too).
        public var sources: Set<Source>

        /// Metadata with these values.
        public init(
            channels: [Channel], baseHeadroom: Double, alternateHeadroom: Double, baseRenditionIsHDR: Bool = false,
            usesBaseColorSpace: Bool = true, sources: Set<Source> = []
        ) {
            self.channels = channels
            self.baseHeadroom = baseHeadroom
            self.alternateHeadroom = alternateHeadroom
            self.baseRenditionIsHDR = baseRenditionIsHDR
            self.usesBaseColorSpace = usesBaseColorSpace
            self.sources = sources
        }

        /// The largest linear boost of the first channel (`2^gainMapMax`): libultrahdr's and
        /// libvips' `max_content_boost`.
        public var maximumContentBoost: Double { channels.first.map { exp2($0.gainMapMax) } ?? 1 }

        /// Why these values cannot describe a map, or `nil` when they can: one or three channels,
        /// every value finite, gammas positive, each channel's maximum at least its minimum.
        public var problem: String? {
            guard channels.count == 1 || channels.count == 3 else {
                return "\(channels.count) channels; a gain map has 1 or 3"
            }
            guard baseHeadroom.isFinite, alternateHeadroom.isFinite else { return "a headroom is not a finite number" }
            for (index, channel) in channels.enumerated() {
                let values = [channel.gainMapMin, channel.gainMapMax, channel.gamma, channel.baseOffset, channel.alternateOffset]
                guard values.allSatisfy(\.isFinite) else { return "channel \(index): a value is not a finite number" }
                guard channel.gamma > 0 else { return "channel \(index): gamma \(channel.gamma) is not positive" }
                guard channel.gainMapMax >= channel.gainMapMin else {
                    return "channel \(index): gain map maximum \(channel.gainMapMax) is below its minimum \(channel.gainMapMin)"
                }
            }
            return nil
        }
    }
}
