/// Reduces straight-alpha RGBA pixels to a palette of at most a given number of colours, for
/// palette PNGs (imgproxy's `IMGPROXY_PNG_QUANTIZE`).
///
/// An image with no more distinct colours than the palette holds is kept exactly (every pixel its
/// own entry). Otherwise median cut over the image's distinct colours, weighted by how many pixels
/// have each: the box with the widest spread on one channel (red, green, blue or alpha) is split
/// at that channel's weighted median until there are enough boxes; each entry is its box's
/// weighted average, and each pixel takes the nearest entry. Opaque, translucent and fully
/// transparent colours start in boxes of their own, so an opaque pixel stays opaque and every
/// fully transparent pixel shares one entry. No dithering: flat areas stay flat, as icons and
/// illustrations (what palette PNGs are for) want.
package struct PaletteQuantizer: Sendable {
    /// The most colours the palette may hold, 1...256.
    package var maximumColors: Int

    /// A quantizer to at most `maximumColors` colours (clamped to 1...256).
    package init(maximumColors: Int) {
        self.maximumColors = min(max(maximumColors, 1), 256)
    }

    /// The palette (RGBA entries, 4 bytes each) and one index per pixel of `rgba`.
    package func quantize(_ rgba: [UInt8]) -> (palette: [UInt8], indices: [UInt8]) {
        let pixelCount = rgba.count / 4
        var mask: UInt32 = 0xFFFF_FFFF
        var counts = Self.histogram(rgba, mask: mask)
        if counts.count > Self.exactColorLimit {
            // A photograph: its colours counted at 5 bits a channel (alpha exact), each bucket
            // standing for its centre, so the cut and the nearest-entry search stay cheap.
            mask = 0xF8F8_F8FF
            counts = Self.histogram(rgba, mask: mask)
        }
        let centre: UInt32 = mask == 0xFFFF_FFFF ? 0 : 0x0404_0400
        let colors = counts.map { Entry(color: $0.key == 0 ? 0 : $0.key | centre, weight: $0.value, key: $0.key) }
        var palette: [UInt8] = []
        var indexOf: [UInt32: UInt8] = [:]
        if colors.count <= maximumColors {
            for (index, entry) in colors.enumerated() {
                palette += Self.unpack(entry.color)
                indexOf[entry.key] = UInt8(index)
            }
        } else {
            let boxes = split(colors)
            for box in boxes { palette += Self.average(box) }
            for entry in colors {
                indexOf[entry.key] = Self.nearest(Self.unpack(entry.color), in: palette, opaqueOnly: entry.color & 0xFF == 0xFF)
            }
        }
        var indices = [UInt8](repeating: 0, count: pixelCount)
        for pixel in 0..<pixelCount {
            indices[pixel] = indexOf[Self.pack(rgba, at: pixel * 4) & mask] ?? 0
        }
        return (palette, indices)
    }

    /// Distinct colours past which colours are counted at 5 bits a channel.
    static let exactColorLimit = 32_768

    /// How many pixels have each colour (`pack`ed, then `mask`ed).
    private static func histogram(_ rgba: [UInt8], mask: UInt32) -> [UInt32: Int] {
        var counts: [UInt32: Int] = [:]
        for pixel in 0..<(rgba.count / 4) {
            counts[pack(rgba, at: pixel * 4) & mask, default: 0] += 1  // every transparent pixel is 0
        }
        return counts
    }

    /// One distinct colour (or bucket of colours) and its pixel count.
    struct Entry {
        /// The colour it stands for.
        var color: UInt32
        var weight: Int
        /// The histogram's key: the colour, or its bucket.
        var key: UInt32
        func channel(_ index: Int) -> Int { Int((color >> UInt32(24 - 8 * index)) & 0xFF) }
    }

    /// Median cut of `colors` into at most ``maximumColors`` non-empty boxes.
    private func split(_ colors: [Entry]) -> [[Entry]] {
        // Opaque, translucent and transparent colours apart from the start, when the palette has room.
        var groups = [
            colors.filter { $0.color & 0xFF == 0xFF }, colors.filter { $0.color & 0xFF != 0xFF && $0.color != 0 },
            colors.filter { $0.color == 0 },
        ].filter { !$0.isEmpty }
        if groups.count > maximumColors { groups = [colors] }
        // Each box with its widest channel and that channel's spread, measured once.
        var boxes = groups.map { Box($0) }
        while boxes.count < maximumColors {
            // The box with the widest spread on one channel (a box of one colour has none).
            guard let index = boxes.indices.max(by: { boxes[$0].spread < boxes[$1].spread }), boxes[index].spread > 0 else { break }
            let channel = boxes[index].channel
            let sorted = boxes[index].entries.sorted { $0.channel(channel) < $1.channel(channel) }
            let total = sorted.reduce(0) { $0 + $1.weight }
            var running = 0
            var cut = 1
            for (position, entry) in sorted.enumerated() {
                running += entry.weight
                if running * 2 >= total {
                    cut = position + 1
                    break
                }
            }
            cut = min(max(cut, 1), sorted.count - 1)
            boxes[index] = Box(Array(sorted[..<cut]))
            boxes.append(Box(Array(sorted[cut...])))
        }
        return boxes.map(\.entries)
    }

    /// Colours of one box, with the channel they spread most on and that spread.
    private struct Box {
        var entries: [Entry]
        var channel = 0
        var spread = 0

        init(_ entries: [Entry]) {
            self.entries = entries
            var low = [255, 255, 255, 255]
            var high = [0, 0, 0, 0]
            for entry in entries {
                for channel in 0..<4 {
                    let value = entry.channel(channel)
                    low[channel] = min(low[channel], value)
                    high[channel] = max(high[channel], value)
                }
            }
            for channel in 0..<4 where high[channel] - low[channel] > spread {
                (self.channel, spread) = (channel, high[channel] - low[channel])
            }
        }
    }

    /// The colour at `offset` as one number (0 for any fully transparent pixel).
    private static func pack(_ rgba: [UInt8], at offset: Int) -> UInt32 {
        if rgba[offset + 3] == 0 { return 0 }
        return UInt32(rgba[offset]) << 24 | UInt32(rgba[offset + 1]) << 16 | UInt32(rgba[offset + 2]) << 8 | UInt32(rgba[offset + 3])
    }

    private static func unpack(_ color: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: color >> 24), UInt8(truncatingIfNeeded: color >> 16), UInt8(truncatingIfNeeded: color >> 8), UInt8(truncatingIfNeeded: color)]
    }

    /// The weighted average colour of `box`.
    private static func average(_ box: [Entry]) -> [UInt8] {
        var sums = [0, 0, 0, 0]
        var total = 0
        for entry in box {
            for channel in 0..<4 { sums[channel] += entry.channel(channel) * entry.weight }
            total += entry.weight
        }
        return sums.map { UInt8(clamping: ($0 + total / 2) / max(total, 1)) }
    }

    /// The index of the entry of `palette` nearest to `color` (squared distance over RGBA), among
    /// the opaque entries only when `opaqueOnly` and there is one.
    private static func nearest(_ color: [UInt8], in palette: [UInt8], opaqueOnly: Bool) -> UInt8 {
        var best = 0
        var bestDistance = Int.max
        let hasOpaque = opaqueOnly && stride(from: 3, to: palette.count, by: 4).contains { palette[$0] == 255 }
        for index in 0..<(palette.count / 4) where !hasOpaque || palette[index * 4 + 3] == 255 {
            var distance = 0
            for channel in 0..<4 {
                let difference = Int(color[channel]) - Int(palette[index * 4 + channel])
                distance += difference * difference
            }
            if distance < bestDistance {
                bestDistance = distance
                best = index
            }
        }
        return UInt8(truncatingIfNeeded: best)
    }
}
