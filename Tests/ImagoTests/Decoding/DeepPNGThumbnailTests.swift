import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// A 16-bit PNG with a colour profile, asked for at a thumbnail size, is reduced at 16 bits and
/// converted through its profile at the reduced size (as libvips does): the same pixels, within
/// rounding, as converting the full-size image and reducing it, without ever holding or
/// converting the full-size image, and without the banding of 8-bit values before the curves.
@Suite struct DeepPNGThumbnailTests {
    /// Adobe RGB (1998), from the colour fixtures: read at each use, not kept in a `static let`,
    /// whose Data payload LeakSanitizer cannot follow and reports as leaked (.ci/lsan.supp).
    static var adobe: Data { (try? ColorProfileReaderTests.profile(of: "adobergb.jpg")) ?? Data() }

    /// A smooth gradient on every channel, alpha from 20% to opaque: 16-bit values whose low byte
    /// matters (an 8-bit rounding would lose it). Colours stay between 40% and 70% on every
    /// channel, so Adobe RGB's and gAMA 1/1.8's colours are inside sRGB: clipped to the sRGB gamut
    /// before averaging instead of after, a block straddling the gamut's edge would differ more.
    static func gradientRow(_ y: Int, width: Int, height: Int, layout: DeepPNGWriter.Layout) -> [UInt16] {
        var samples = [UInt16]()
        samples.reserveCapacity(width * layout.channels)
        let low = 26_214, span = 19_661
        for x in 0..<width {
            let red = UInt16(low + x * span / max(width - 1, 1))
            let green = UInt16(low + y * span / max(height - 1, 1))
            let blue = UInt16(low + (x + y) * span / max(width + height - 2, 1))
            let alpha = UInt16(13_107 + (x * 3 + y) * 52_428 / max(width * 3 + height - 4, 1))
            switch layout {
            case .gray: samples.append(red / 2 &+ green / 2)
            case .grayAlpha: samples += [red / 2 &+ green / 2, alpha]
            case .rgb: samples += [red, green, blue]
            case .rgba: samples += [red, green, blue, alpha]
            }
        }
        return samples
    }

    /// The reference: the full-size image converted by Little CMS from its 16-bit samples (gray as
    /// R = G = B), then reduced by ``BoxReducer`` as an 8-bit image.
    static func fullSizeThenReduced(
        _ rows: [[UInt16]], width: Int, layout: DeepPNGWriter.Layout, profile: ColorProfile, factor: Int
    ) throws -> Bitmap {
        let transformLayout: ColorTransform.Layout = layout.hasAlpha ? .rgba16BE : .rgb16BE
        guard case .success(let transform) = ColorTransformCache.shared.transform(profile: profile.data, layout: transformLayout)
        else { throw CancellationError() }
        let channels = layout.hasAlpha ? 4 : 3
        var input = [UInt8]()
        input.reserveCapacity(rows.count * width * channels * 2)
        for row in rows {
            for x in 0..<width {
                let pixel = row[(x * layout.channels)..<((x + 1) * layout.channels)].map { $0 }
                let expanded = layout.isGray ? [pixel[0], pixel[0], pixel[0]] + pixel.dropFirst() : pixel
                for sample in expanded { input += [UInt8(sample >> 8), UInt8(sample & 0xFF)] }
            }
        }
        var pixels = [UInt8](repeating: 0, count: rows.count * width * 4)
        input.withUnsafeBytes { source in
            pixels.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                transform.apply(
                    input: from, inputStride: width * channels * 2, output: to, outputStride: width * 4, width: width,
                    rows: rows.count)
            }
        }
        let full = Bitmap(width: width, height: rows.count, alphaMode: layout.hasAlpha ? .straight : .opaque, pixels: pixels)
        return BoxReducer.reduce(full, factor: factor)
    }

    /// Every 16-bit layout, with an ICC profile (Adobe RGB), PNG gAMA 1/1.8 + cHRM (Adobe's primaries) or
    /// gAMA 1.0 (linear light, the steepest curve at black). Odd sizes, so edge blocks are partial.
    @Test(arguments: [
        (DeepPNGWriter.Layout.rgb, "iCCP"), (.rgba, "iCCP"), (.rgb, "cHRM"), (.rgba, "cHRM"),
        (.gray, "linear"), (.grayAlpha, "linear"), (.gray, "cHRM"),
    ])
    func thumbnailMatchesFullSizeConversionThenReduction(_ layout: DeepPNGWriter.Layout, _ declaration: String) throws {
        let width = 203, height = 131
        var writer = DeepPNGWriter(width: width, height: height, layout: layout)
        switch declaration {
        case "iCCP": writer.chunks = [DeepPNGWriter.iccp(Self.adobe)]
        case "cHRM": writer.chunks = [DeepPNGWriter.gamma(1 / 1.8), DeepPNGWriter.adobeChromaticities]
        default: writer.chunks = [DeepPNGWriter.gamma(1)]
        }
        let rows = (0..<height).map { Self.gradientRow($0, width: width, height: height, layout: layout) }
        let png = try writer.data { rows[$0] }
        let context = DecodingContext(format: .png, maximumPixelSize: 24)  // factor 4: 51x33
        let (container, workingSize) = try PNGDecoder().decodeMeasuringWork(png, context: context)
        let thumbnail = try container.bitmap()
        let profile = try #require(container.colorProfile, "\(layout) \(declaration): no profile")
        #expect(container.repairs.isEmpty, "\(container.repairs)")
        #expect(thumbnail.width == 51 && thumbnail.height == 33)
        #expect(thumbnail.alphaMode == (layout.hasAlpha ? .straight : .opaque))
        // Only the reduced image was held (16-bit and 8-bit), never the full one.
        #expect(workingSize < width * height * 4 / 2, "working size \(workingSize)")

        let reference = try Self.fullSizeThenReduced(rows, width: width, layout: layout, profile: profile, factor: 4)
        let worst = largestDifference(thumbnail, reference.pixels)
        let deltaE = ColorDifference.meanCIEDE2000(thumbnail, reference)
        // Reducing before the curves instead of after differs by their curvature across a block of
        // 4x4 pixels of a smooth gradient, far below a level here, plus the rounding of each
        // order's 8-bit result: one level (measured: 1 in every case, mean ΔE2000 0.006–0.17).
        #expect(worst.value <= 1, "\(layout) \(declaration): \(worst) from the full-size conversion reduced")
        #expect(deltaE < 0.25, "\(layout) \(declaration): mean ΔE2000 \(deltaE)")
        // The conversion ran: the pixels as stored, narrowed to 8 bits, are far from it.
        let kept = try ImageDecoder.decode(png, maximumPixelSize: 24, colorProfileHandling: .keep).bitmap()
        #expect(largestDifference(kept, reference.pixels).value > 8, "\(layout) \(declaration): not converted")
    }

    /// The 16-bit colour fixture (photograph-like, with sharp edges between saturated colours) at
    /// a quarter of its size, against libvips 8.18, which also reduces first and converts after
    /// (references made once with pyvips; Fixtures/colour/README.md says how):
    /// - libvips's `shrink(4, 4)` of the 16-bit samples, stored as a 16-bit PNG with the profile and
    ///   decoded here at full size (each row converted by Little CMS at 16 bits): the same reduction
    ///   and the same conversion, so within one level (the rounding of the average);
    /// - libvips's own `icc_transform` of that to 8-bit sRGB: within one level too (measured: 1,
    ///   mean ΔE2000 0.006), though its 16-bit transform is Little CMS's precalculated one.
    /// Converting the full-size image first and reducing after is not the same on such edges (an
    /// average of two colours in Adobe RGB's values is not their average in sRGB's): 30 levels at
    /// worst here (mean ΔE2000 0.26), which is why that comparison uses smooth gradients above.
    @Test func thumbnailOfTheColourFixtureMatchesLibvips() throws {
        let fixture = try #require(ColorFixture.decoded.first { $0.file == "rgb16-iccp.png" })
        let thumbnail = try ImageDecoder.decode(fixture.data(), maximumPixelSize: 24)  // 192x144 by 4
        let bitmap = try thumbnail.bitmap()
        #expect(bitmap.width == 48 && bitmap.height == 36)
        #expect(thumbnail.colorProfile?.name == fixture.description)

        let shrunk = try ImageDecoder.decode(ColorFixture.data("rgb16-iccp.png.shrink4-libvips.png"))
        #expect(shrunk.colorProfile?.name == fixture.description)
        let sameConversion = largestDifference(bitmap, try shrunk.bitmap().pixels)
        #expect(sameConversion.value <= 1, "\(sameConversion) from libvips's shrink converted here")

        let libvips = try ImageDecoder.decode(ColorFixture.data("rgb16-iccp.png.thumbnail4-libvips.png")).bitmap()
        let worst = largestDifference(bitmap, libvips.pixels)
        let deltaE = ColorDifference.meanCIEDE2000(bitmap, libvips)
        #expect(worst.value <= 1 && deltaE < 0.05, "\(worst), mean ΔE2000 \(deltaE) from libvips's thumbnail")
    }

    /// An Adam7 file, its passes added straight to 16-bit block sums, gives the very pixels of the
    /// same samples stored row by row (the same sums, averaged and converted the same way).
    @Test(arguments: DeepPNGWriter.Layout.allCases)
    func interlacedThumbnailEqualsTheSequentialOne(_ layout: DeepPNGWriter.Layout) throws {
        let width = 203, height = 131
        let rows = (0..<height).map { Self.gradientRow($0, width: width, height: height, layout: layout) }
        var writer = DeepPNGWriter(width: width, height: height, layout: layout, chunks: [DeepPNGWriter.iccp(Self.adobe)])
        let sequential = try writer.data { rows[$0] }
        writer.interlaced = true
        let interlaced = try writer.data { rows[$0] }
        let context = DecodingContext(format: .png, maximumPixelSize: 24)
        let expected = try PNGDecoder().decode(sequential, context: context)
        let (container, workingSize) = try PNGDecoder().decodeMeasuringWork(interlaced, context: context)
        #expect(container.colorProfile?.name == "Compatible with Adobe RGB (1998)")
        #expect(try container.bitmap() == expected.bitmap())
        // 46 bytes a reduced pixel (32 of sums, the 16-bit averages, the bitmap): at this factor of
        // 4, under 3 bytes a source pixel, less than the image as RGBA8 (and far less than as
        // stored, 2 to 8 bytes); at a thumbnail's usual factors of 7 and more, under one.
        #expect(workingSize < width * height * 3, "working size \(workingSize)")
    }

    /// A 16-bit file cut inside its pixels: lenient (as browsers), the rows that arrived are reduced
    /// and converted, the rest transparent, with the repair; strict, refused.
    @Test func cutShortFileKeepsTheRowsThatArrived() throws {
        let width = 64, height = 64
        let rows = (0..<height).map { Self.gradientRow($0, width: width, height: height, layout: .rgb) }
        let png = try DeepPNGWriter(width: width, height: height, layout: .rgb, chunks: [DeepPNGWriter.iccp(Self.adobe)])
            .data { rows[$0] }
        let cut = png.prefix(png.count - (png.count - 700) / 2)  // about half of the pixels
        let context = DecodingContext(format: .png, maximumPixelSize: 8)  // factor 4: 16x16
        let container = try PNGDecoder().decode(cut, context: context)
        let thumbnail = try container.bitmap()
        let missing = container.repairs.compactMap { repair -> Range<Int>? in
            if case .missingRows(let range) = repair.kind { range } else { nil }
        }
        let range = try #require(missing.first, "\(container.repairs)")
        #expect(range.lowerBound > 4 && range.upperBound == height, "\(range)")
        #expect(thumbnail.width == 16 && thumbnail.height == 16 && thumbnail.alphaMode == .straight)
        let full = BoxReducer.reduce(try PNGDecoder().decode(png, context: DecodingContext(format: .png)).bitmap(), factor: 4)
        let complete = range.lowerBound / 4  // output rows whose four source rows all arrived
        for y in 0..<16 {
            let row = (y * 16 * 4)..<((y + 1) * 16 * 4)
            if y < complete {
                let worst = zip(thumbnail.pixels[row], full.pixels[row]).map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(worst <= 1, "row \(y): \(worst) levels from the complete file's")
            } else if y > (range.lowerBound - 1) / 4 {
                #expect(thumbnail.pixels[row].allSatisfy { $0 == 0 }, "row \(y) should be transparent")
            }
        }
        #expect(throws: ImagePipeline.Error.self) {
            try PNGDecoder().decode(cut, context: DecodingContext(format: .png, maximumPixelSize: 8, policy: .strict))
        }
    }

    /// An Adam7 16-bit file cut inside its last passes: the blocks the early passes reached are
    /// converted, with the repair; a cut inside the first pass's rows leaves blocks no pixel
    /// reached, which stay transparent even though the file is opaque.
    @Test func cutShortInterlacedFileKeepsThePassesThatArrived() throws {
        let width = 64, height = 64
        let rows = (0..<height).map { Self.gradientRow($0, width: width, height: height, layout: .rgb) }
        var writer = DeepPNGWriter(width: width, height: height, layout: .rgb, chunks: [DeepPNGWriter.iccp(Self.adobe)])
        writer.interlaced = true
        let png = try writer.data { rows[$0] }
        let context = DecodingContext(format: .png, maximumPixelSize: 8)  // factor 4: 16x16
        for kept in [0.75, 0.03] {
            let cut = png.prefix(700 + Int(Double(png.count - 700) * kept))
            let container = try PNGDecoder().decode(cut, context: context)
            let thumbnail = try container.bitmap()
            #expect(container.repairs.contains { $0.description.contains("Adam7 pass") }, "\(container.repairs)")
            #expect(thumbnail.width == 16 && thumbnail.alphaMode == .straight)
            let alphas = stride(from: 3, to: thumbnail.pixels.count, by: 4).map { thumbnail.pixels[$0] }
            #expect(alphas.contains(255), "kept \(kept): nothing converted")
            if kept < 0.5 {
                #expect(alphas.contains(0), "kept \(kept): blocks no pixel reached must be transparent")
            }
        }
    }

    /// Precision is kept up to the transform: a dark ramp in linear light (16-bit gray, gAMA 1.0,
    /// values 0...1,310, sRGB 0...39) reduced by 8 gives every sRGB level of the exact block
    /// averages, within one; reduced from 8-bit values first it would have about six.
    @Test func linearRampIsNotBanded() throws {
        let width = 4096, height = 16, top = 1_310
        let ramp = (0..<width).map { UInt16($0 * top / (width - 1)) }
        let png = try DeepPNGWriter(width: width, height: height, layout: .gray, chunks: [DeepPNGWriter.gamma(1)]).data { _ in ramp }
        let thumbnail = try ImageDecoder.decode(png, maximumPixelSize: 256).bitmap()
        #expect(thumbnail.width == 512 && thumbnail.height == 2)
        func encoded(_ linear: Double) -> Int {
            let value = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
            return Int((value * 255).rounded())
        }
        var exact = Set<Int>(), narrowed = Set<Int>()
        for x in 0..<thumbnail.width {
            let block = ramp[(x * 8)..<(x * 8 + 8)]
            let mean = Double(block.reduce(0) { $0 + Int($1) }) / 8 / 65_535
            let expected = encoded(mean)
            exact.insert(expected)
            // What 8-bit rows would give: each sample rounded to 8 bits, then averaged.
            narrowed.insert(encoded(Double(block.reduce(0) { $0 + (Int($1) * 255 + 32_767) / 65_535 }) / 8 / 255))
            for y in 0..<thumbnail.height {
                let pixel = (y * thumbnail.width + x) * 4
                #expect(abs(Int(thumbnail.pixels[pixel]) - expected) <= 1, "x \(x): \(thumbnail.pixels[pixel]) for \(expected)")
            }
        }
        let levels = Set(stride(from: 0, to: thumbnail.pixels.count, by: 4).map { thumbnail.pixels[$0] })
        #expect(exact.count >= 38 && levels.count >= exact.count - 2, "\(levels.count) levels, \(exact.count) exact")
        #expect(narrowed.count < 12, "\(narrowed.count) levels through 8 bits")
    }

    /// 4000x750 at 16 bits to 256: the full image would be 18–24 MB as stored and 12 MB as RGBA8;
    /// the decoder holds one 16-bit row, one row of sums and the image reduced by 7 (572x108), at
    /// 16 bits and then 8, under 1 MB. (A 4000x3000 source checked the same at four times the
    /// cost: a fifth of a sanitizer stage's parallel pass.)
    @Test(arguments: [DeepPNGWriter.Layout.rgb, .rgba])
    func largeThumbnailNeverHoldsTheFullImage(_ layout: DeepPNGWriter.Layout) async throws {
        try await offThePool {
            let width = 4000, height = 750
            let base = Self.gradientRow(0, width: width, height: 2, layout: layout)
            let png = try DeepPNGWriter(width: width, height: height, layout: layout, chunks: [DeepPNGWriter.iccp(Self.adobe)])
                .data { y in
                    var row = base
                    row[(y % width) * layout.channels] = UInt16(truncatingIfNeeded: y &* 21)  // rows differ
                    return row
                }
            let context = DecodingContext(format: .png, maximumPixelSize: 256)
            let (container, workingSize) = try PNGDecoder().decodeMeasuringWork(png, context: context)
            let bitmap = try container.bitmap()
            #expect(bitmap.width == 572 && bitmap.height == 108)
            #expect(container.colorProfile?.name == "Compatible with Adobe RGB (1998)")
            #expect(workingSize < 1024 * 1024, "working size \(workingSize)")
            #expect(workingSize < width * height * 4 / 10)
        }
    }
}
