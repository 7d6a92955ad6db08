import Foundation
import Imago
import Synchronization

/// The real decoder, counting how often it runs: proves that coalesced requests decode once.
final class CountingDecoder: ImageDecoding {
    private let decoder = ImageDecoder()
    private let calls = Atomic<Int>(0)

    var count: Int { calls.load(ordering: .relaxed) }

    func canDecode(_ format: ImageFormat) -> Bool { decoder.canDecode(format) }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        calls.add(1, ordering: .relaxed)
        return try decoder.decode(data, context: context)
    }
}
