#if canImport(CoreGraphics) && !os(Linux)
import CoreGraphics
import Foundation
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

// The processors work on `Bitmap` on every platform; on Apple platforms these two conversions
// carry a UIImage or NSImage across, drawing through CoreGraphics. Nothing else lives here.
// The image is taken as drawn upright: decoders apply EXIF orientation to the pixels.

extension PlatformImage {
    /// The image drawn into premultiplied RGBA8 in sRGB, or nil when it has no bitmap to draw.
    var bitmap: Bitmap? {
        #if canImport(UIKit)
        guard let cgImage else { return nil }
        #else
        guard let cgImage = self.cgImage(forProposedRect: nil, context: nil, hints: nil) else { return nil }
        #endif
        let width = cgImage.width
        let height = cgImage.height
        guard width > 0, height > 0, let space = CGColorSpace(name: CGColorSpace.sRGB) else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height * Bitmap.bytesPerPixel)
        let drawn = pixels.withUnsafeMutableBytes { buffer -> Bool in
            guard
                let context = CGContext(
                    data: buffer.baseAddress, width: width, height: height, bitsPerComponent: 8,
                    bytesPerRow: width * Bitmap.bytesPerPixel, space: space,
                    bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue)
            else { return false }
            context.draw(cgImage, in: CGRect(x: 0, y: 0, width: width, height: height))
            return true
        }
        guard drawn else { return nil }
        return Bitmap(width: width, height: height, alphaMode: .premultiplied, pixels: pixels)
    }
}

extension PlatformImage {
    /// Whether the image's `CGImage` has no alpha channel (`CGImageAlphaInfo` `.none`,
    /// `.noneSkipFirst` or `.noneSkipLast`); false when there is no `CGImage` to ask.
    var hasNoAlphaChannel: Bool {
        #if canImport(UIKit)
        guard let cgImage else { return false }
        #else
        guard let cgImage = self.cgImage(forProposedRect: nil, context: nil, hints: nil) else { return false }
        #endif
        switch cgImage.alphaInfo {
        case .none, .noneSkipFirst, .noneSkipLast: return true
        default: return false
        }
    }
}

extension Bitmap {
    /// The pixels as a UIImage or NSImage, or nil when CoreGraphics refuses them.
    var platformImage: PlatformImage? {
        let alphaInfo: CGImageAlphaInfo =
            switch alphaMode {
            case .opaque: .noneSkipLast
            case .straight: .last
            case .premultiplied: .premultipliedLast
            }
        guard
            let space = CGColorSpace(name: CGColorSpace.sRGB),
            let provider = CGDataProvider(data: Data(pixels) as CFData),
            let cgImage = CGImage(
                width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: bytesPerRow,
                space: space, bitmapInfo: CGBitmapInfo(rawValue: alphaInfo.rawValue), provider: provider,
                decode: nil, shouldInterpolate: true, intent: .defaultIntent)
        else { return nil }
        #if canImport(UIKit)
        return UIImage(cgImage: cgImage)
        #else
        return NSImage(cgImage: cgImage, size: NSSize(width: width, height: height))
        #endif
    }
}
#else
// On Linux the platform image wraps a `Bitmap`: both conversions are free.

extension PlatformImage {
    /// The decoded pixels.
    var bitmap: Bitmap? { pixels }
}

extension Bitmap {
    /// The bitmap as the platform's image.
    var platformImage: PlatformImage? { PlatformImage(self) }
}
#endif
