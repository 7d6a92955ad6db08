import Foundation

/// Decodes a GIF one frame at a time, composited as browsers show it, for playback with bounded
/// memory: one canvas and one index plane live here, whatever the length of the animation.
///
/// Opening the source reads every block once without decoding pixels (`GIFReader.skipImage(frameIndex:)`)
/// to count the frames and check ``DecodingLimits`` against the whole animation up front.
struct GIFFrameSource: AnimationFrameSource {
    private let bytes: [UInt8]
    private let url: URL?
    private let limits: DecodingLimits
    private let policy: DecodingPolicy
    private var reader: GIFReader
    private var screen: GIFReader.Screen
    private var canvas: GIFCanvas
    private var plane: [UInt8]
    private var decoded = 0
    /// The number of frames, counted from the file without decoding them.
    public let frameCount: Int
    /// How many times the animation plays; 0 means forever.
    public let loopCount: Int
    /// Always ``ImageFormat/gif``.
    public var format: ImageFormat { .gif }

    /// Opens `data` and checks the limits (canvas and frame sizes, frame count); `policy` says
    /// whether a damaged frame is shown as browsers show it or is an error.
    /// - Throws: `decodingFailed` for a malformed file, `limitExceeded`.
    public init(
        data: Data, url: URL? = nil, limits: DecodingLimits = DecodingLimits(), policy: DecodingPolicy = .lenient
    ) throws(ImagePipeline.Error) {
        bytes = [UInt8](data)
        self.url = url
        self.limits = limits
        self.policy = policy
        try limits.check(encodedSize: bytes.count, url: url)
        var scan = GIFReader(bytes: bytes, url: url, policy: policy)
        var screen = try scan.readScreen()
        (screen.width, screen.height) = scan.canvasSize(of: screen)
        try limits.check(width: screen.width, height: screen.height, url: url)
        var count = 0
        scanning: while true {
            switch try scan.readBlock() {
            case .image(let descriptor):
                try limits.check(width: descriptor.width, height: descriptor.height, url: url)
                let isComplete = try scan.skipImage(frameIndex: count)
                // Lenient: a frame cut off by the end of the file plays only when it is the first.
                if !isComplete && count > 0 { break scanning }
                count += 1
                if count > limits.maximumFrameCount {
                    throw .limitExceeded(url, .frameCount(count: count, limit: limits.maximumFrameCount))
                }
            case .graphicControl:
                continue
            case .end:
                break scanning
            }
        }
        guard count > 0 else { throw .decodingFailed(url, .gif, reason: "the file holds no image") }
        frameCount = count
        loopCount = Self.loopCount(in: bytes)
        self.screen = screen
        reader = GIFReader(bytes: bytes, url: url, policy: policy)
        _ = try reader.readScreen()
        canvas = GIFCanvas(width: screen.width, height: screen.height)
        plane = [UInt8](repeating: 0, count: screen.width * screen.height)
    }

    /// Decodes the next frame onto the canvas, starting again after the last.
    public mutating func nextFrame() throws(ImagePipeline.Error) -> AnimationFrame {
        if decoded == frameCount { try rewind() }
        var control = GIFReader.GraphicControl()
        while true {
            switch try reader.readBlock() {
            case .graphicControl(let next):
                control = next
            case .image(let descriptor):
                let image = try reader.readImage(descriptor, frameIndex: decoded, into: &plane, canvasWidth: screen.width)
                let lenientColors: [RGBA]? = policy == .lenient ? [] : nil
                guard let colors = descriptor.localColors ?? screen.globalColors ?? lenientColors else {
                    throw reader.failure("frame \(decoded + 1) has no colour table")
                }
                let shown = canvas.draw(
                    plane, at: descriptor, colors: colors, control: control,
                    decodedPixels: image.isComplete ? nil : image.decoded)
                decoded += 1
                return try AnimationFrame(bitmap: shown, duration: FrameTiming.displayDuration(control.duration))
            case .end:
                throw reader.failure("the file changed: frame \(decoded + 1) of \(frameCount) is missing")
            }
        }
    }

    /// Back to the first frame: a fresh reader, a transparent canvas.
    private mutating func rewind() throws(ImagePipeline.Error) {
        reader = GIFReader(bytes: bytes, url: url, policy: policy)
        _ = try reader.readScreen()
        canvas = GIFCanvas(width: screen.width, height: screen.height)
        plane = [UInt8](repeating: 0, count: screen.width * screen.height)
        decoded = 0
    }

    /// Plays from the NETSCAPE2.0 application extension: absent → 1 (play once); 0 → forever;
    /// n → n + 1, since the field counts repeats after the first play (as Chromium and Firefox read it).
    static func loopCount(in bytes: [UInt8]) -> Int {
        let signature: [UInt8] = [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x03, 0x01]
        guard bytes.count >= signature.count + 2 else { return 1 }
        for start in 0...(bytes.count - signature.count - 2) where bytes[start] == 0x21 {
            guard bytes[start..<(start + signature.count)].elementsEqual(signature) else { continue }
            let repeats = Int(bytes[start + signature.count]) | Int(bytes[start + signature.count + 1]) << 8
            return repeats == 0 ? 0 : repeats + 1
        }
        return 1
    }
}
