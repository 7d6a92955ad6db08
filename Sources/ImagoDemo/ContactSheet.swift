import Foundation
import Imago

/// A grid of thumbnails with a label under each, drawn into one opaque bitmap: what `imago demo`
/// writes to `imago-demo/contact-sheet.png`.
public struct ContactSheet {
    /// Where each cell goes; the image's size follows from it alone.
    public struct Layout: Equatable, Sendable {
        public let count: Int
        /// The largest side of a thumbnail in a cell.
        public let cell: Int
        public let columns: Int
        public let rows: Int
        /// Space around and between cells.
        public let padding: Int
        /// Height of the label strip under each thumbnail.
        public let labelHeight: Int
        /// Size of a font pixel.
        public let fontScale: Int

        /// Up to `maximumColumns` per row.
        init(count: Int, cell: Int, maximumColumns: Int = 6) {
            self.count = count
            self.cell = cell
            columns = max(1, min(count, maximumColumns))
            rows = max(1, (count + columns - 1) / columns)
            padding = 8
            fontScale = cell >= 128 ? 2 : 1
            labelHeight = BitmapFont.glyphHeight * fontScale + 6
        }

        public var width: Int { columns * cell + (columns + 1) * padding }
        public var height: Int { rows * (cell + labelHeight) + (rows + 1) * padding }

        /// The top-left corner of cell `index`.
        func origin(of index: Int) -> (x: Int, y: Int) {
            (padding + (index % columns) * (cell + padding), padding + (index / columns) * (cell + labelHeight + padding))
        }
    }

    static let background = RGBA(236, 236, 236)
    static let labelColor = RGBA(30, 30, 30)

    /// Draws `thumbnails` (each with its label) into a grid of `cell`-pixel cells; a thumbnail
    /// larger than a cell is scaled down to fit, a smaller one centred.
    public static func draw(_ thumbnails: [(bitmap: Bitmap, label: String)], cell: Int) throws -> (Bitmap, Layout) {
        let layout = Layout(count: thumbnails.count, cell: cell)
        var sheet = Bitmap(width: layout.width, height: layout.height, fill: background)
        sheet.alphaMode = .opaque
        for (index, thumbnail) in thumbnails.enumerated() {
            var image = thumbnail.bitmap
            if image.width > cell || image.height > cell {
                image = try ThumbnailProcessor(maximumPixelSize: cell).process(image)
            }
            let origin = layout.origin(of: index)
            composite(image, onto: &sheet, x: origin.x + (cell - image.width) / 2, y: origin.y + (cell - image.height) / 2)
            // Words are dropped from the end until the label fits its cell.
            var label = thumbnail.label
            while BitmapFont.width(of: label, scale: layout.fontScale) > cell, let space = label.lastIndex(of: " ") {
                label = String(label[..<space])
            }
            let labelWidth = BitmapFont.width(of: label, scale: layout.fontScale)
            BitmapFont.draw(
                label, into: &sheet, x: origin.x + max(0, (cell - labelWidth) / 2), y: origin.y + cell + 4,
                scale: layout.fontScale, color: labelColor,
                clip: (origin.x..<(origin.x + cell), (origin.y + cell)..<(origin.y + cell + layout.labelHeight)))
        }
        return (sheet, layout)
    }

    /// Blends `image` over `sheet` at (`x`, `y`), respecting its alpha mode.
    private static func composite(_ image: Bitmap, onto sheet: inout Bitmap, x: Int, y: Int) {
        for row in 0..<image.height {
            let sy = y + row
            guard sy >= 0, sy < sheet.height else { continue }
            for column in 0..<image.width {
                let sx = x + column
                guard sx >= 0, sx < sheet.width else { continue }
                let source = (row * image.width + column) * Bitmap.bytesPerPixel
                let target = (sy * sheet.width + sx) * Bitmap.bytesPerPixel
                let alpha = image.alphaMode == .opaque ? 255 : Int(image.pixels[source + 3])
                for channel in 0..<3 {
                    let value = Int(image.pixels[source + channel])
                    let under = Int(sheet.pixels[target + channel])
                    let colour = image.alphaMode == .premultiplied ? value : value * alpha / 255
                    sheet.pixels[target + channel] = UInt8(clamping: colour + under * (255 - alpha) / 255)
                }
                sheet.pixels[target + 3] = 255
            }
        }
    }
}
