#if canImport(UIKit)
import UIKit

/// The image type the pipeline hands out on this platform.
public typealias PlatformImage = UIImage
#elseif canImport(AppKit)
import AppKit

/// The image type the pipeline hands out on this platform.
public typealias PlatformImage = NSImage
#else
/// The image type the pipeline hands out on Linux: a decoded image, as `UIImage` and `NSImage` are
/// on Apple platforms.
///
/// It is deliberately not a ``Bitmap`` and has no public API of its own, so that code treating a
/// platform image as pixels fails to compile here exactly as it would on Apple platforms. Reach the
/// pixels with ``ImageContainer/bitmap()`` or ``AnimationFrame/bitmap()``, which work everywhere.
public struct PlatformImage: Sendable, Hashable {
    /// The decoded pixels.
    let pixels: Bitmap

    init(_ pixels: Bitmap) {
        self.pixels = pixels
    }
}
#endif

extension ImageContainer {
    /// The image's size in pixels.
    public var pixelSize: PixelSize {
        #if canImport(UIKit)
        PixelSize(width: Int(image.size.width * image.scale), height: Int(image.size.height * image.scale))
        #elseif canImport(AppKit)
        PixelSize(
            width: image.representations.first?.pixelsWide ?? Int(image.size.width),
            height: image.representations.first?.pixelsHigh ?? Int(image.size.height))
        #else
        PixelSize(width: image.pixels.width, height: image.pixels.height)
        #endif
    }
}
