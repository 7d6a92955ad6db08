import Foundation
import Imago
import Synchronization

/// The real decoder, counting how often it runs (proves that coalesced requests decode once) and
/// recording the size each decode was asked for (proves shrink-on-load).
final class CountingDecoder: ImageDecoding {
    private let decoder = ImageDecoder()
    private let calls = Atomic<Int>(0)
    private let sizes = Locked<[Int?]>([])

    var count: Int { calls.load(ordering: .relaxed) }
    /// Each decode's ``DecodingContext/maximumPixelSize``, in order.
    var maximumPixelSizes: [Int?] { sizes.withLock { $0 } }

    func canDecode(_ format: ImageFormat) -> Bool { decoder.canDecode(format) }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        calls.add(1, ordering: .relaxed)
        sizes.withLock { $0.append(context.maximumPixelSize) }
        return try decoder.decode(data, context: context)
    }
}
