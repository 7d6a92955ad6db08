import Testing

@testable import Imago

/// The eight orientations on a 3x2 bitmap whose pixels are numbered, checked against the EXIF
/// specification's pictures rather than against another decoder.
@Suite struct EXIFOrientationTests {
    /// Pixels 1 2 3 / 4 5 6 (the red channel holds the number).
    let numbered = Bitmap(
        width: 3, height: 2, alphaMode: .opaque, pixels: (1...6).flatMap { [UInt8($0), 0, 0, 255] })

    @Test(arguments: [
        (EXIFOrientation.up, [[1, 2, 3], [4, 5, 6]]),
        (.upMirrored, [[3, 2, 1], [6, 5, 4]]),
        (.down, [[6, 5, 4], [3, 2, 1]]),
        (.downMirrored, [[4, 5, 6], [1, 2, 3]]),
        (.leftMirrored, [[1, 4], [2, 5], [3, 6]]),
        (.right, [[4, 1], [5, 2], [6, 3]]),
        (.rightMirrored, [[6, 3], [5, 2], [4, 1]]),
        (.left, [[3, 6], [2, 5], [1, 4]]),
    ])
    func turnsUpright(_ orientation: EXIFOrientation, _ rows: [[Int]]) {
        let turned = orientation.apply(to: numbered)
        #expect(turned.width == rows[0].count && turned.height == rows.count)
        let actual = (0..<turned.height).map { y in (0..<turned.width).map { x in Int(turned[x, y].r) } }
        #expect(actual == rows)
    }

    @Test func readsTheTagFromTheFixtures() throws {
        for value in 1...8 {
            let data = [UInt8](try Fixture.named("jpeg-orientation-\(value)").data())
            let orientation = data.withUnsafeBufferPointer { EXIFOrientation(jpeg: $0) }
            #expect(orientation?.rawValue == value)
        }
        let plain = [UInt8](try Fixture.named("jpeg-baseline").data())
        #expect(plain.withUnsafeBufferPointer { EXIFOrientation(jpeg: $0) } == nil)
    }

    @Test func ignoresABrokenExifBlock() {
        // SOI, APP1 "Exif" whose TIFF header is cut short, then SOS.
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x0C] + Array("Exif\0\0MM\0".utf8) + [0xFF, 0xDA]
        #expect(bytes.withUnsafeBufferPointer { EXIFOrientation(jpeg: $0) } == nil)
    }
}
