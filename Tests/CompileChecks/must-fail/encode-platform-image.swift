// expect-error: cannot convert value of type 'PlatformImage' to expected argument type 'Bitmap'
import Imago

// On Apple platforms `response.image` is a UIImage or NSImage, which no encoder takes.
func encode(_ response: ImageResponse) throws -> [UInt8] {
    Array(try PNGEncoder().encode(response.image))
}
