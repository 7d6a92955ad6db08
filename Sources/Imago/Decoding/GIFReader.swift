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

    private let bytes: [UInt8]
    private let url: URL?
    private var offset = 0
    private var imageCount = 0

    init(bytes: [UInt8], url: URL?) {
        self.bytes = bytes
        self.url = url
    }

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
                return .image(try readImageDescriptor())
            case 0x21:
                guard offset < bytes.count else { throw failure("the file ends inside an extension") }
                let label = bytes[offset]
                offset += 1
                if label == 0xF9, let control = try readGraphicControl() { return .graphicControl(control) }
                try skipSubBlocks()
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
    mutating func readImage(
        _ descriptor: ImageDescriptor, frameIndex: Int, into plane: inout [UInt8], canvasWidth: Int
    ) throws(ImagePipeline.Error) {
        guard offset < bytes.count else { throw failure("frame \(frameIndex + 1) ends before its image data") }
        let minimumCodeSize = Int(bytes[offset])
        offset += 1
        let compressed = try readSubBlocks()
        let count = descriptor.width * descriptor.height
        let canvasHeight = plane.count / canvasWidth
        let rows = descriptor.isInterlaced ? Self.interlacedRowOrder(height: descriptor.height) : nil
        var row = 0
        var column = 0
        let produced: Int
        do throws(LZWDecoder.Failure) {
            produced = try plane.withUnsafeMutableBufferPointer { target throws(LZWDecoder.Failure) in
                try LZWDecoder.decode(compressed, minimumCodeSize: minimumCodeSize, capacity: count) { run in
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
            switch error {
            case .invalidCode(let code):
                throw failure("frame \(frameIndex + 1) has corrupt LZW data (code \(code) is not in the table)")
            case .invalidCodeSize(let size):
                throw failure("frame \(frameIndex + 1) declares an LZW code size of \(size)")
            }
        }
        guard produced == count else {
            throw failure("frame \(frameIndex + 1)'s image data ends after \(produced) of \(count) pixels")
        }
        imageCount += 1
    }

    /// Steps over a frame's image data without decoding it: counting frames and reading their
    /// delays costs no LZW work (``GIFFrameSource``).
    mutating func skipImage(frameIndex: Int) throws(ImagePipeline.Error) {
        guard offset < bytes.count else { throw failure("frame \(frameIndex + 1) ends before its image data") }
        offset += 1  // minimum code size
        try skipSubBlocks()
        imageCount += 1
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
        guard descriptor.width > 0, descriptor.height > 0 else {
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
        guard offset + count * 3 <= bytes.count else { throw failure("the file ends inside a colour table") }
        let colors = (0..<count).map { RGBA(bytes[offset + $0 * 3], bytes[offset + $0 * 3 + 1], bytes[offset + $0 * 3 + 2]) }
        offset += count * 3
        return colors
    }

    private mutating func readSubBlocks() throws(ImagePipeline.Error) -> [UInt8] {
        var data: [UInt8] = []
        while true {
            guard offset < bytes.count else { throw failure("the file ends inside image data") }
            let length = Int(bytes[offset])
            offset += 1
            if length == 0 { return data }
            guard offset + length <= bytes.count else { throw failure("the file ends inside image data") }
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
