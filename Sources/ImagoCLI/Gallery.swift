import Foundation
import Imago
import ImagoTestSupport

/// The demo's images: generated pictures of several shapes and formats.
struct Gallery {
    struct Item {
        let path: String
        let format: ImageFormat
        let data: Data
    }

    let items: [Item]

    /// `count` images whose longer side is `longerSide`: landscape, portrait and square JPEGs,
    /// and every fourth one a PNG with transparency.
    static func make(count: Int, longerSide: Int) throws -> Gallery {
        let shapes = [(4, 3), (3, 4), (1, 1), (16, 9)]
        let items = try (0..<count).map { index in
            let (w, h) = shapes[index % shapes.count]
            let width = w >= h ? longerSide : longerSide * w / h
            let height = h >= w ? longerSide : longerSide * h / w
            if index % 4 == 3 {
                let data = try Fixtures.png(width: width, height: height, seed: index, transparent: true)
                return Item(path: "/gallery/\(index + 1).png", format: .png, data: data)
            }
            let data = try Fixtures.jpeg(width: width, height: height, seed: index)
            return Item(path: "/gallery/\(index + 1).jpg", format: .jpeg, data: data)
        }
        return Gallery(items: items)
    }

    var summary: String {
        let jpegs = items.filter { $0.format == .jpeg }.count
        let bytes = items.reduce(0) { $0 + $1.data.count }
        return "\(items.count) images (\(jpegs) JPEG, \(items.count - jpegs) PNG, \(ByteCount.format(bytes)))"
    }
}
