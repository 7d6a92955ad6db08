extension ImageContainer {
    /// The still image's pixels as 8-bit RGBA, on every platform.
    ///
    /// This is the one platform-neutral way to reach a decoded image's pixels (to encode it, to
    /// compare it, to hand it to another library). On Linux it returns the decoded pixels
    /// themselves; on Apple platforms it draws the `UIImage` or `NSImage` through CoreGraphics into
    /// premultiplied sRGB.
    ///
    /// - Throws: ``ImagePipeline/Error/processingFailed(_:processor:reason:)`` when the platform
    ///   image has no pixels to read (an `NSImage` made from a PDF, say).
    public func bitmap() throws(ImagePipeline.Error) -> Bitmap {
        try Self.readBitmap(of: image)
    }

    /// A container for pixels you made or changed, as the decoders would return it: on Apple
    /// platforms the bitmap becomes a `UIImage` or `NSImage`.
    ///
    /// - Throws: ``ImagePipeline/Error/processingFailed(_:processor:reason:)`` when CoreGraphics
    ///   refuses the pixels (Apple platforms only).
    public init(bitmap: Bitmap, format: ImageFormat) throws(ImagePipeline.Error) {
        self.init(image: try Self.makeImage(from: bitmap), format: format)
    }

    static func readBitmap(of image: PlatformImage) throws(ImagePipeline.Error) -> Bitmap {
        guard let bitmap = image.bitmap else {
            throw .processingFailed(nil, processor: "bitmap", reason: "the image's pixels could not be read")
        }
        return bitmap
    }

    static func makeImage(from bitmap: Bitmap) throws(ImagePipeline.Error) -> PlatformImage {
        guard let image = bitmap.platformImage else {
            throw .processingFailed(nil, processor: "bitmap", reason: "the pixels could not be made into an image")
        }
        return image
    }
}

extension AnimationFrame {
    /// The frame's pixels as 8-bit RGBA, on every platform (see ``ImageContainer/bitmap()``).
    public func bitmap() throws(ImagePipeline.Error) -> Bitmap {
        try ImageContainer.readBitmap(of: image)
    }

    /// A frame of `duration` made from pixels you made or changed.
    public init(bitmap: Bitmap, duration: Duration) throws(ImagePipeline.Error) {
        self.init(image: try ImageContainer.makeImage(from: bitmap), duration: duration)
    }
}
