// expect-error: value of type 'PlatformImage' has no member 'width'
import Imago

// A UIImage or NSImage has no `width` in pixels: the pixels are reached through `bitmap()`.
func width(of container: ImageContainer) -> Int {
    container.image.width
}
