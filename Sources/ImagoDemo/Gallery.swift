import Foundation
import Imago
import ImagoSamples

/// The demo's images: generated pictures of several shapes, as JPEG and PNG.
public struct Gallery: Sendable {
    /// One image of the gallery: its path on the origin, its format and its bytes.
    public struct Item: Sendable {
        public let path: String
        public let format: ImageFormat
        public let data: Data
    }

    public let items: [Item]

    /// `count` images whose longer side is `longerSide`: landscape, portrait and square JPEGs,
    /// and every fourth one a PNG with transparency.
    public static func make(count: Int, longerSide: Int) throws -> Gallery {
        let shapes = [(4, 3), (3, 4), (1, 1), (16, 9)]
        let items = try (0..<count).map { index in
            let (w, h) = shapes[index % shapes.count]
            let width = w >= h ? longerSide : longerSide * w / h
            let height = h >= w ? longerSide : longerSide * h / w
            if index % 4 == 3 {
                let data = try SamplePicture.png(width: width, height: height, seed: index, transparent: true)
                return Item(path: "/gallery/\(index + 1).png", format: .png, data: data)
            }
            let data = try SamplePicture.jpeg(width: width, height: height, seed: index)
            return Item(path: "/gallery/\(index + 1).jpg", format: .jpeg, data: data)
        }
        return Gallery(items: items)
    }

    /// How many of the images are JPEGs (the others are PNGs).
    public var jpegCount: Int { items.filter { $0.format == .jpeg }.count }

    /// The bytes of every image together.
    public var byteCount: Int { items.reduce(0) { $0 + $1.data.count } }
}
