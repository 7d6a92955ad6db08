// expect-error: cannot convert value of type 'Bitmap' to expected argument type 'PlatformImage'
import Imago

// A Bitmap is not a UIImage or NSImage: wrap pixels with `ImageContainer(bitmap:format:)`.
func container(for bitmap: Bitmap) -> ImageContainer {
    ImageContainer(image: bitmap, format: .png)
}
