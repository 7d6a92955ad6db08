import Foundation

/// Reads the blocks of a GIF file one after another; ``GIFDecoder`` decides what to do with them.
struct GIFReader {
    /// The logical screen: canvas size and the global colour table.
    struct Screen {
        var width: Int
        var height: Int
        var globalColors: [RGBA]?
    }

    /// The graphic control extension that applies to the next image.
    struct GraphicControl {
        /// 0 or 1: leave in place; 2: clear to transparent; 3: restore the previous canvas.
        var disposal = 0
        var transparentIndex: UInt8?
        /// The delay, with 0 and 1 hundredths played as 100 ms like browsers do.
        var duration: Duration = .milliseconds(100)
    }

    struct ImageDescriptor {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var isInterlaced: Bool
        var localColors: [RGBA]?
    }

    enum Block {
        case graphicControl(GraphicControl)
        case image(ImageDescriptor)
        case end
    }

    /// What a frame's image data gave: `decoded` of `count` pixels in stream order; fewer (only
    /// when lenient) with the reason it stopped.
    struct ImageData {
        var decoded: Int
        var count: Int
        var problem: String?
        var isComplete: Bool { decoded == count }
    }

    let bytes: [UInt8]
    private let url: URL?
    /// ``DecodingPolicy/lenient``: image data that ends early or turns corrupt keeps the pixels
    /// decoded before it, a file cut off after an image ends there, a colour table cut off is
    /// padded with black, and an LZW code size of 0 is read as browsers read it.
    private let isLenient: Bool
    private var offset = 0
    private var imageCount = 0

    init(bytes: [UInt8], url: URL?, policy: DecodingPolicy = .strict) {
        self.bytes = bytes
        self.url = url
        self.isLenient = policy == .lenient
    }

    /// The canvas browsers show: the logical screen, grown under the lenient policy to hold the
    /// first frame when that frame starts inside it and reaches past its edge (Chromium sizes
    /// such a GIF to the union of the two). A frame that starts wholly outside is clipped away
    /// instead, so a stray 16-bit offset cannot ask for a 40000-pixel canvas. Reads ahead on a
    /// copy; the reader itself does not move.
    func canvasSize(of screen: Screen) -> (width: Int, height: Int) {
        guard isLenient else { return (screen.width, screen.height) }
        var lookahead = self
        while case .some(let block) = try? lookahead.readBlock() {
            switch block {
            case .graphicControl: continue
            case .end: return (screen.width, screen.height)
            case .image(let frame):
                guard frame.x < screen.width && frame.y < screen.height else { return (screen.width, screen.height) }
                return (max(screen.width, frame.x + frame.width), max(screen.height, frame.y + frame.height))
            }
        }
        return (screen.width, screen.height)
    }

    /// Whether the reader has reached the end of the bytes.
    var isAtEnd: Bool { offset >= bytes.count }

    func failure(_ reason: String) -> ImagePipeline.Error { .decodingFailed(url, .gif, reason: reason) }

    mutating func readScreen() throws(ImagePipeline.Error) -> Screen {
        guard bytes.count >= 13 else { throw failure("the file ends inside its header") }
        let width = uint16(at: 6), height = uint16(at: 8), flags = bytes[10]
        guard width > 0, height > 0 else { throw failure("the header declares a \(width)x\(height) canvas") }
        offset = 13
        let colors = flags & 0x80 != 0 ? try readColorTable(sizeField: flags & 0x07) : nil
        return Screen(width: width, height: height, globalColors: colors)
    }

    /// The next block. A file that stops cleanly between blocks after at least one image (a
    /// missing trailer is common) ends there; one that stops earlier is truncated.
    mutating func readBlock() throws(ImagePipeline.Error) -> Block {
        while true {
            guard offset < bytes.count else {
                if imageCount > 0 { return .end }
                throw failure("the file ends before its first image")
            }
            let introducer = bytes[offset]
            offset += 1
            switch introducer {
            case 0x3B:
                return .end
            case 0x2C:
                do throws(ImagePipeline.Error) {
                    return .image(try readImageDescriptor())
                } catch where isLenient && imageCount > 0 {
                    return .end  // cut off inside the next frame's descriptor: the frames before it stand
                }
            case 0x21:
                do throws(ImagePipeline.Error) {
                    guard offset < bytes.count else { throw failure("the file ends inside an extension") }
                    let label = bytes[offset]
                    offset += 1
                    if label == 0xF9, let control = try readGraphicControl() { return .graphicControl(control) }
                    try skipSubBlocks()
                } catch where isLenient && imageCount > 0 {
                    return .end  // cut off inside an extension after complete frames
                }
            case 0x00 where isLenient:
                continue  // a stray block terminator, left by an extension whose block size is wrong
            default:
                if imageCount > 0 { return .end }  // trailing garbage after complete frames
                let hex = String(introducer, radix: 16, uppercase: true)
                throw failure("unexpected block 0x\(hex.count < 2 ? "0" + hex : hex) at byte \(offset - 1)")
            }
        }
    }

    /// Decodes the frame's colour indices into `plane`, one byte per canvas pixel, at the frame's
    /// place on the canvas (interlacing undone). Pixels outside the canvas are dropped, so a frame
    /// that declares itself larger than the canvas costs no memory.
    ///
    /// Strict, any damage throws. Lenient, it returns how many pixels decoded before the data
    /// ended or turned corrupt; the caller leaves the rest transparent.
    @discardableResult
    mutating func readImage(
        _ descriptor: ImageDescriptor, frameIndex: Int, into plane: inout [UInt8], canvasWidth: Int
    ) throws(ImagePipeline.Error) -> ImageData {
        let count = descriptor.width * descriptor.height
        guard offset < bytes.count else {
            let reason = "frame \(frameIndex + 1) ends before its image data"
            guard isLenient else { throw failure(reason) }
            imageCount += 1
            return ImageData(decoded: 0, count: count, problem: reason)
        }
        let minimumCodeSize = Int(bytes[offset])
        offset += 1
        var problem: String?
        let compressed: [UInt8]
        switch readSubBlocksKeepingPartial() {
        case .success(let data):
            compressed = data
        case .failure(let error):
            guard isLenient, case .truncated(let data) = error else { throw failure("the file ends inside image data") }
            compressed = data
            problem = "the file ends inside frame \(frameIndex + 1)'s image data"
        }
        let canvasHeight = plane.count / canvasWidth
        let rows = descriptor.isInterlaced ? Self.interlacedRowOrder(height: descriptor.height) : nil
        var row = 0
        var column = 0
        var emitted = 0
        do throws(LZWDecoder.Failure) {
            _ = try plane.withUnsafeMutableBufferPointer { target throws(LZWDecoder.Failure) in
                try LZWDecoder.decode(
                    compressed, minimumCodeSize: minimumCodeSize, capacity: count, allowsCodeSizeZero: isLenient
                ) { run in
                    emitted += run.count
                    for index in run {
                        let x = descriptor.x + column
                        let y = descriptor.y + (rows?[row] ?? row)
                        if x < canvasWidth && y < canvasHeight { target[y * canvasWidth + x] = index }
                        column += 1
                        if column == descriptor.width {
                            column = 0
                            row += 1
                        }
                    }
                }
            }
        } catch {
            let reason = switch error {
            case .invalidCode(let code):
                "frame \(frameIndex + 1) has corrupt LZW data (code \(code) is not in the table)"
            case .invalidCodeSize(let size):
                "frame \(frameIndex + 1) declares an LZW code size of \(size)"
            }
            guard isLenient else { throw failure(reason) }
            problem = reason
        }
        if emitted < count && problem == nil {
            let reason = "frame \(frameIndex + 1)'s image data ends after \(emitted) of \(count) pixels"
            guard isLenient else { throw failure(reason) }
            problem = reason
        }
        imageCount += 1
        return ImageData(decoded: emitted, count: count, problem: emitted < count ? problem : nil)
    }

    /// Steps over a frame's image data without decoding it: counting frames and reading their
    /// delays costs no LZW work (``GIFFrameSource``).
    ///
    /// Lenient, a frame cut off by the end of the file counts (it shows what decoded) and returns
    /// `false`: the caller decides whether to keep it.
    @discardableResult
    mutating func skipImage(frameIndex: Int) throws(ImagePipeline.Error) -> Bool {
        do throws(ImagePipeline.Error) {
            guard offset < bytes.count else { throw failure("frame \(frameIndex + 1) ends before its image data") }
            offset += 1  // minimum code size
            try skipSubBlocks()
        } catch {
            guard isLenient else { throw error }
            offset = bytes.count
            imageCount += 1
            return false
        }
        imageCount += 1
        return true
    }

    /// Interlaced GIFs store rows 0, 8, 16…, then 4, 12…, then 2, 6…, then 1, 3…
    static func interlacedRowOrder(height: Int) -> [Int] {
        [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in Array(stride(from: start, to: height, by: step)) }
    }

    private mutating func readImageDescriptor() throws(ImagePipeline.Error) -> ImageDescriptor {
        guard offset + 9 <= bytes.count else { throw failure("the file ends inside an image descriptor") }
        let flags = bytes[offset + 8]
        var descriptor = ImageDescriptor(
            x: uint16(at: offset), y: uint16(at: offset + 2), width: uint16(at: offset + 4),
            height: uint16(at: offset + 6), isInterlaced: flags & 0x40 != 0)
        offset += 9
        guard descriptor.width > 0 && descriptor.height > 0 || isLenient else {
            throw failure("an image declares a \(descriptor.width)x\(descriptor.height) frame")
        }
        if flags & 0x80 != 0 { descriptor.localColors = try readColorTable(sizeField: flags & 0x07) }
        return descriptor
    }

    /// The graphic control extension, or `nil` when it is malformed (then it is skipped).
    private mutating func readGraphicControl() throws(ImagePipeline.Error) -> GraphicControl? {
        guard offset + 5 <= bytes.count, bytes[offset] == 4 else { return nil }
        let flags = bytes[offset + 1]
        let delay = uint16(at: offset + 2)
        var control = GraphicControl()
        control.disposal = Int((flags >> 2) & 0x07)
        control.transparentIndex = flags & 0x01 != 0 ? bytes[offset + 4] : nil
        control.duration = .milliseconds(delay <= 1 ? 100 : delay * 10)
        offset += 5
        try skipSubBlocks()  // the terminator, and anything a broken encoder added
        return control
    }

    private mutating func readColorTable(sizeField: UInt8) throws(ImagePipeline.Error) -> [RGBA] {
        let count = 2 << Int(sizeField)
        guard offset + count * 3 <= bytes.count else {
            guard isLenient else { throw failure("the file ends inside a colour table") }
            // What a browser reads: the entries present, black after them; the image data is gone.
            let present = max(bytes.count - offset, 0) / 3
            let colors = (0..<count).map { $0 < present ? RGBA(bytes[offset + $0 * 3], bytes[offset + $0 * 3 + 1], bytes[offset + $0 * 3 + 2]) : RGBA(0, 0, 0) }
            offset = bytes.count
            return colors
        }
        let colors = (0..<count).map { RGBA(bytes[offset + $0 * 3], bytes[offset + $0 * 3 + 1], bytes[offset + $0 * 3 + 2]) }
        offset += count * 3
        return colors
    }

    /// Image data cut off by the end of the file, with the bytes that were there.
    enum Truncation: Error {
        case truncated([UInt8])
    }

    /// The concatenated sub-blocks; at the end of the file, the bytes up to it.
    private mutating func readSubBlocksKeepingPartial() -> Result<[UInt8], Truncation> {
        var data: [UInt8] = []
        while true {
            guard offset < bytes.count else { return .failure(.truncated(data)) }
            let length = Int(bytes[offset])
            offset += 1
            if length == 0 { return .success(data) }
            guard length <= bytes.count - offset else {
                data.append(contentsOf: bytes[offset...])
                offset = bytes.count
                return .failure(.truncated(data))
            }
            data.append(contentsOf: bytes[offset..<(offset + length)])
            offset += length
        }
    }

    private mutating func skipSubBlocks() throws(ImagePipeline.Error) {
        while true {
            guard offset < bytes.count else { throw failure("the file ends inside an extension") }
            let length = Int(bytes[offset])
            offset += 1 + length
            if length == 0 { return }
        }
    }

    private func uint16(at index: Int) -> Int { Int(bytes[index]) | Int(bytes[index + 1]) << 8 }
}
