#if canImport(UIKit)
import UIKit

/// The image type the pipeline hands out on this platform.
public typealias PlatformImage = UIImage
#elseif canImport(AppKit)
import AppKit

/// The image type the pipeline hands out on this platform.
public typealias PlatformImage = NSImage
#else
/// The image type the pipeline hands out on this platform: a decoded ``Bitmap`` on Linux.
public typealias PlatformImage = Bitmap
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
        PixelSize(width: image.width, height: image.height)
        #endif
    }
}
