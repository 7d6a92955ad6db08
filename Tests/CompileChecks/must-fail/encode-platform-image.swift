// expect-error: cannot convert value of type 'PlatformImage' to expected argument type 'Bitmap'
import Imago

// On Apple platforms `response.image` is a UIImage or NSImage, which is no bitmap to encode.
func encode(_ response: ImageResponse) throws -> [UInt8] {
    Array(try ImageContainer(bitmap: response.image, format: .png).encoded(as: .png))
}
