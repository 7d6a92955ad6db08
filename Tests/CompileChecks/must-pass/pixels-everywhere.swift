import Foundation
import Imago

// The platform-neutral counterparts of the must-fail snippets.
func encode(_ response: ImageResponse) throws -> Data {
    try ImageContainer(bitmap: response.container.bitmap(), format: .png).encoded(as: .png)
}

func width(of container: ImageContainer) throws -> Int {
    try container.bitmap().width
}

func container(for bitmap: Bitmap) throws -> ImageContainer {
    try ImageContainer(bitmap: bitmap, format: .png)
}
