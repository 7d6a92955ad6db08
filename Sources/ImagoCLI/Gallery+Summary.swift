import ImagoDemo

extension Gallery {
    /// "24 images (18 JPEG, 6 PNG, 2.1 MB)", for the demo's first line.
    var summary: String {
        "\(items.count) images (\(jpegCount) JPEG, \(items.count - jpegCount) PNG, \(ByteCount.format(byteCount)))"
    }
}
