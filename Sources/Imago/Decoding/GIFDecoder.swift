import Foundation

#if os(Linux)  // with the other Linux codecs; Apple platforms use ImageIO
/// Decodes GIF in Swift: every frame composited onto the canvas as browsers show it, with its delay.
///
/// Frames honour transparency, local and global colour tables, interlacing and the disposal
/// methods; the canvas starts transparent and "restore to background" clears to transparent, as
/// browsers do. Delays of 0 or 1 hundredths of a second play as 100 ms, also as browsers do. Limits
/// are checked before each frame is decoded: its own size, the frame count, and the pixels decoded
/// so far (each frame counts the larger of its own area, which its LZW data must fill, and the
/// canvas's, which it produces), so a 1x1 canvas cannot carry a thousand huge frames. The task's
/// cancellation is checked between frames.
///
/// Damage follows ``DecodingContext/policy``. Lenient (the default), as browsers do: the first
/// frame short of data shows the pixels it holds and leaves the rest transparent, an animation cut
/// off keeps its complete frames, a frame declared 0 pixels wide or high is empty, an LZW code size of 0 decodes, and each repair is listed in
/// ``ImageContainer/repairs``. Strict: any of these fails the decoding.
struct GIFDecoder: ImageDecoding {
    func canDecode(_ format: ImageFormat) -> Bool { format == .gif }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        var reader = GIFReader(bytes: [UInt8](data), url: context.url, policy: context.policy)
        var screen = try reader.readScreen()
        (screen.width, screen.height) = reader.canvasSize(of: screen)
        let limits = context.limits
        try limits.checkSource(width: screen.width, height: screen.height, url: context.url)
        _ = try limits.checkedByteCount(width: screen.width, height: screen.height, url: context.url)
        // With a target size each composited frame is box-reduced before it is kept, so an
        // animation holds one full canvas and reduced frames.
        let factor = BoxReducer.factor(width: screen.width, height: screen.height, target: context.maximumPixelSize)

        var canvas = GIFCanvas(width: screen.width, height: screen.height)
        var plane = [UInt8](repeating: 0, count: screen.width * screen.height)
        var frames: [AnimationFrame] = []
        var control = GIFReader.GraphicControl()
        var totalPixels = 0
        var repairs: [ImageContainer.Repair] = []
        decoding: while true {
            switch try reader.readBlock() {
            case .graphicControl(let next):
                control = next
            case .image(let descriptor):
                if frames.count >= context.wantedFrameCount { break decoding }
                try context.checkCancellation()
                if frames.count == limits.maximumFrameCount {
                    throw .limitExceeded(context.url, .frameCount(count: frames.count + 1, limit: limits.maximumFrameCount))
                }
                try limits.check(width: descriptor.width, height: descriptor.height, url: context.url)
                let decodedArea = max(descriptor.width * descriptor.height, screen.width * screen.height)
                try limits.addFramePixels(decodedArea, to: &totalPixels, url: context.url)
                if descriptor.width == 0 || descriptor.height == 0 {  // only read when lenient
                    repairs.append(ImageContainer.Repair(.corruptData(
                        "frame \(frames.count + 1) declares a \(descriptor.width)x\(descriptor.height) frame; drawn empty")))
                }
                let image = try reader.readImage(descriptor, frameIndex: frames.count, into: &plane, canvasWidth: screen.width)
                if !image.isComplete && !frames.isEmpty && reader.isAtEnd {
                    // The file ends inside a later frame: the complete frames before it are the
                    // animation. (A frame short of data inside a whole file shows, as the first does.)
                    repairs.append(ImageContainer.Repair(.framesKept(kept: frames.count, of: nil)))
                    break decoding
                }
                var colors = descriptor.localColors ?? screen.globalColors
                if colors == nil && context.policy == .lenient {
                    repairs.append(ImageContainer.Repair(.corruptData("frame \(frames.count + 1) has no colour table; drawn black")))
                    colors = []
                }
                guard let colors else { throw reader.failure("frame \(frames.count + 1) has no colour table") }
                if !image.isComplete {
                    repairs.append(ImageContainer.Repair(.missingPixels(frame: frames.count, count: image.count - image.decoded)))
                    if let problem = image.problem { repairs.append(ImageContainer.Repair(.corruptData(problem))) }
                }
                let shown = canvas.draw(
                    plane, at: descriptor, colors: colors, control: control,
                    decodedPixels: image.isComplete ? nil : image.decoded)
                frames.append(try AnimationFrame(bitmap: BoxReducer.reduce(shown, factor: factor), duration: control.duration))
                control = GIFReader.GraphicControl()
            case .end:
                break decoding
            }
        }
        guard let first = frames.first else { throw reader.failure("the file holds no image") }
        var container = ImageContainer(image: first.image, format: .gif, frames: frames.count > 1 ? frames : [], repairs: repairs)
        if frames.count > 1 { container.loopCount = GIFFrameSource.loopCount(in: reader.bytes) }
        return container
    }
}
#endif

/// The canvas an animation is drawn on, with the disposal each frame asks for.
///
/// A frame may lie partly or wholly outside the canvas (its offsets are any 16-bit values): only
/// the part inside is drawn, and only that part is disposed of. Disposal 2 clears the frame's
/// rectangle to transparent, 3 restores the canvas as it was before the frame; 0, 1 and the
/// undefined values 4-7 leave the frame in place, as browsers do.
struct GIFCanvas {
    /// A frame's rectangle clipped to the canvas; empty when the frame lies wholly outside.
    struct Region: Equatable {
        var left: Int, top: Int, right: Int, bottom: Int
        var isEmpty: Bool { left >= right || top >= bottom }
    }

    private var pixels: [UInt8]
    private let width: Int
    private let height: Int
    private var pendingDisposal: (method: Int, region: Region, saved: [UInt8]?)?

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// The part of `frame` inside a canvas of `width` x `height`, never with a negative size.
    static func clip(_ frame: GIFReader.ImageDescriptor, width: Int, height: Int) -> Region {
        let left = min(max(frame.x, 0), width), top = min(max(frame.y, 0), height)
        let right = min(max(frame.x + frame.width, left), width)
        let bottom = min(max(frame.y + frame.height, top), height)
        return Region(left: left, top: top, right: right, bottom: bottom)
    }

    /// Disposes of the previous frame, draws the frame's rectangle from `plane` (one colour index
    /// per canvas pixel) and returns the canvas as shown.
    ///
    /// `decodedPixels`: when the frame's data ended early, how many of its pixels (in the order
    /// they are stored, interlaced or not) decoded; the others are left as they were, transparent
    /// on a fresh canvas.
    mutating func draw(
        _ plane: [UInt8], at frame: GIFReader.ImageDescriptor, colors: [RGBA], control: GIFReader.GraphicControl,
        decodedPixels: Int? = nil
    ) -> Bitmap {
        dispose()
        let region = Self.clip(frame, width: width, height: height)
        pendingDisposal = (control.disposal, region, control.disposal == 3 ? pixels : nil)
        let transparent = control.transparentIndex.map(Int.init) ?? -1
        if !region.isEmpty {
            let decodedColumns = decodedPixels.map { Self.decodedColumns(of: frame, decodedPixels: $0) }
            pixels.withUnsafeMutableBufferPointer { canvas in
                for y in region.top..<region.bottom {
                    let right = decodedColumns.map { min(max(frame.x + $0[y - frame.y], region.left), region.right) } ?? region.right
                    for x in region.left..<right {
                        let index = Int(plane[y * width + x])
                        if index == transparent { continue }
                        let color = index < colors.count ? colors[index] : RGBA(0, 0, 0)
                        let target = (y * width + x) * 4
                        canvas[target] = color.r
                        canvas[target + 1] = color.g
                        canvas[target + 2] = color.b
                        canvas[target + 3] = 255
                    }
                }
            }
        }
        let isOpaque = stride(from: 3, to: pixels.count, by: 4).allSatisfy { pixels[$0] == 255 }
        return Bitmap(width: width, height: height, alphaMode: isOpaque ? .opaque : .straight, pixels: pixels)
    }

    /// For each row of `frame`, how many of its pixels (from its left edge) decoded when only the
    /// first `decodedPixels` in stream order did.
    static func decodedColumns(of frame: GIFReader.ImageDescriptor, decodedPixels: Int) -> [Int] {
        guard frame.width > 0 else { return [Int](repeating: 0, count: frame.height) }
        let fullRows = decodedPixels / frame.width, partial = decodedPixels % frame.width
        var columns = [Int](repeating: 0, count: frame.height)
        let order = frame.isInterlaced ? GIFReader.interlacedRowOrder(height: frame.height) : Array(0..<frame.height)
        for (position, row) in order.enumerated() {
            columns[row] = position < fullRows ? frame.width : position == fullRows ? partial : 0
        }
        return columns
    }

    /// Applies the previous frame's disposal: 2 clears its rectangle, 3 restores what was before it.
    private mutating func dispose() {
        guard let disposal = pendingDisposal else { return }
        pendingDisposal = nil
        switch disposal.method {
        case 2 where !disposal.region.isEmpty:
            let region = disposal.region
            let rowBytes = (region.right - region.left) * 4
            for y in region.top..<region.bottom {
                let start = (y * width + region.left) * 4
                pixels.replaceSubrange(start..<(start + rowBytes), with: repeatElement(0, count: rowBytes))
            }
        case 3:
            if let saved = disposal.saved { pixels = saved }
        default:
            break  // 0, 1 and the undefined 4-7: leave the frame in place
        }
    }
}
