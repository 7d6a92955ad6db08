import Foundation
import Testing

@testable import Imago

extension ProcessingTests {
    /// The attention crop against libvips' `smartcrop` of the same files (Fixtures/smartcrop,
    /// made by its script with libvips 8.18 through pyvips): photographs with a colourful object
    /// off centre on a dull, textured background.
    @Suite struct SmartCropLibvipsTests {
        struct Manifest: Decodable {
            struct Box: Decodable {
                var x: Int
                var y: Int
                var width: Int
                var height: Int
            }
            struct Crop: Decodable {
                var width: Int
                var height: Int
                var interesting: String
                var left: Int
                var top: Int
            }
            struct Scene: Decodable {
                var file: String
                var object: Box
                var crops: [Crop]
            }
            var libvips: String
            var scenes: [Scene]
        }

        static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/smartcrop")

        static func manifest() throws -> Manifest {
            try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: folder.appendingPathComponent("manifest.json")))
        }

        /// For every scene and window: the object's centre is in the window, in ours as in
        /// libvips', and the two windows overlap by most of their area (ours analyses a copy at
        /// most 256 pixels a side, libvips the whole image: 58–93% of the area, 78% on average).
        @Test func attentionKeepsTheObjectWhereLibvipsDoes() throws {
            let manifest = try Self.manifest()
            var overlaps: [Double] = []
            #expect(manifest.scenes.count == 3)
            for scene in manifest.scenes {
                let image = try ImageDecoder.decode(Data(contentsOf: Self.folder.appendingPathComponent(scene.file))).bitmap()
                let centre = (x: scene.object.x + scene.object.width / 2, y: scene.object.y + scene.object.height / 2)
                for crop in scene.crops where crop.interesting == "attention" {
                    let window = "\(scene.file) \(crop.width)x\(crop.height)"
                    let vips = (x: crop.left, y: crop.top)
                    #expect(Self.contains(vips, crop, centre), "libvips keeps the object: \(window)")
                    let ours = ImageProcessors.SmartCrop(width: crop.width, height: crop.height).origin(in: image)
                    #expect(Self.contains(ours, crop, centre), "\(window): ours at \(ours), libvips' at \(vips)")
                    let overlap =
                        Double(max(0, crop.width - abs(ours.x - vips.x)) * max(0, crop.height - abs(ours.y - vips.y)))
                        / Double(crop.width * crop.height)
                    overlaps.append(overlap)
                    #expect(overlap >= 0.5, "\(window): ours at \(ours), libvips' at \(vips), overlap \(overlap)")
                }
            }
            #expect(overlaps.count == 9)
            #expect(overlaps.reduce(0, +) / Double(max(1, overlaps.count)) >= 0.7, "\(overlaps)")
        }

        static func contains(_ origin: (x: Int, y: Int), _ crop: Manifest.Crop, _ point: (x: Int, y: Int)) -> Bool {
            origin.x <= point.x && point.x < origin.x + crop.width && origin.y <= point.y && point.y < origin.y + crop.height
        }
    }
}
