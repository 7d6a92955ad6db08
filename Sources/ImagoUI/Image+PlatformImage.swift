#if canImport(SwiftUI)
import Imago
import SwiftUI

extension Image {
    /// A SwiftUI image showing a pipeline's image (`UIImage` or `NSImage`).
    public init(platformImage: PlatformImage) {
        #if canImport(UIKit)
        self.init(uiImage: platformImage)
        #else
        self.init(nsImage: platformImage)
        #endif
    }
}
#endif
