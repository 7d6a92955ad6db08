import Foundation

#if os(Linux)  // with the other Linux codecs; Apple platforms use ImageIO
/// Decodes GIF in Swift: every frame composited onto the canvas as browsers show it, with its delay.
///
/// Frames honour transparency, local and global colour tables, interlacing and the three disposal
/// methods; the canvas starts transparent and "restore to background" clears to transparent, as
/// browsers do. Delays of 0 or 1 hundredths of a second play as 100 ms, also as browsers do. Limits
/// are checked before each frame is decoded; a frame whose image data ends early fails the whole
/// decoding rather than showing a partly empty frame.
struct GIFDecoder: ImageDecoding {
    func canDecode(_ format: ImageFormat) -> Bool { format == .gif }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        var reader = GIFReader(bytes: [UInt8](data), url: context.url)
        let screen = try reader.readScreen()
        let limits = context.limits
        try limits.check(width: screen.width, height: screen.height, url: context.url)

        var canvas = GIFCanvas(width: screen.width, height: screen.height)
        var plane = [UInt8](repeating: 0, count: screen.width * screen.height)
        var frames: [AnimationFrame] = []
        var control = GIFReader.GraphicControl()
        var totalPixels = 0
        decoding: while true {
            switch try reader.readBlock() {
            case .graphicControl(let next):
                control = next
            case .image(let descriptor):
                if !context.decodesAllFrames && !frames.isEmpty { break decoding }
                if frames.count == limits.maximumFrameCount {
                    throw .limitExceeded(context.url, .frameCount(count: frames.count + 1, limit: limits.maximumFrameCount))
                }
                totalPixels += screen.width * screen.height
                if totalPixels > limits.maximumTotalFramePixels {
                    throw .limitExceeded(
                        context.url, .totalFramePixels(count: totalPixels, limit: limits.maximumTotalFramePixels))
                }
                try limits.check(width: descriptor.width, height: descriptor.height, url: context.url)
                try reader.readImage(descriptor, frameIndex: frames.count, into: &plane, canvasWidth: screen.width)
                guard let colors = descriptor.localColors ?? screen.globalColors else {
                    throw reader.failure("frame \(frames.count + 1) has no colour table")
                }
                let shown = canvas.draw(plane, at: descriptor, colors: colors, control: control)
                frames.append(AnimationFrame(image: PlatformImage(shown), duration: control.duration))
                control = GIFReader.GraphicControl()
            case .end:
                break decoding
            }
        }
        guard let first = frames.first else { throw reader.failure("the file holds no image") }
        return ImageContainer(image: first.image, format: .gif, frames: frames.count > 1 ? frames : [])
    }
}
#endif

/// The canvas an animation is drawn on, with the disposal each frame asks for.
struct GIFCanvas {
    private var pixels: [UInt8]
    private let width: Int
    private let height: Int
    private var pendingDisposal: (method: Int, x: Int, y: Int, width: Int, height: Int, saved: [UInt8]?)?

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// Disposes of the previous frame, draws the frame's rectangle from `plane` (one colour index
    /// per canvas pixel) and returns the canvas as shown.
    mutating func draw(
        _ plane: [UInt8], at frame: GIFReader.ImageDescriptor, colors: [RGBA], control: GIFReader.GraphicControl
    ) -> Bitmap {
        dispose()
        let left = max(frame.x, 0), right = min(frame.x + frame.width, width)
        let top = max(frame.y, 0), bottom = min(frame.y + frame.height, height)
        pendingDisposal = (control.disposal, left, top, right - left, bottom - top,
                           control.disposal == 3 ? pixels : nil)
        let transparent = control.transparentIndex.map(Int.init) ?? -1
        pixels.withUnsafeMutableBufferPointer { canvas in
            guard left < right, top < bottom else { return }
            for y in top..<bottom {
                for x in left..<right {
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
        let isOpaque = stride(from: 3, to: pixels.count, by: 4).allSatisfy { pixels[$0] == 255 }
        return Bitmap(width: width, height: height, alphaMode: isOpaque ? .opaque : .straight, pixels: pixels)
    }

    /// Applies the previous frame's disposal: 2 clears its rectangle, 3 restores what was before it.
    private mutating func dispose() {
        guard let disposal = pendingDisposal else { return }
        if disposal.method == 3, let saved = disposal.saved {
            pixels = saved
        } else if disposal.method == 2 {
            for y in disposal.y..<(disposal.y + disposal.height) {
                let start = (y * width + disposal.x) * 4
                pixels.replaceSubrange(start..<(start + disposal.width * 4),
                                       with: repeatElement(0, count: disposal.width * 4))
            }
        }
        pendingDisposal = nil
    }
}
