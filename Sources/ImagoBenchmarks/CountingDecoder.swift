import Foundation
import Imago
import Synchronization

/// The built-in decoders, counting how often they run: the decode count of the coalescing and
/// peak-memory figures. Registered ahead of the built-ins, it hands every format to them.
final class CountingDecoder: ImageDecoding {
    private let builtIn = ImageDecoderRegistry()
    private let counter = Atomic<Int>(0)

    /// Decodes run so far.
    var count: Int { counter.load(ordering: .relaxed) }

    func canDecode(_ format: ImageFormat) -> Bool { builtIn.canDecode(format) }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        counter.add(1, ordering: .relaxed)
        return try builtIn.decode(data, context: context)
    }
}
