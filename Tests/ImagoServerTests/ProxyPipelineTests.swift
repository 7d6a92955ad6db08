#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import Imago
@testable import ImagoServer

/// The proxy as a client of `ImagePipeline`: decoders registered on it serve proxy requests, and
/// its decoded memory (the tier, and decodes in flight) stays within the pipeline's budgets.
@Suite struct ProxyPipelineTests {
    /// A made-up format: `RAWRGBA1`, width and height as big-endian UInt16, then the pixels.
    struct RawRGBADecoder: ImageDecoding {
        static let format = ImageFormat("rawrgba", mimeType: "image/x-raw-rgba")
        static let magic = Data("RAWRGBA1".utf8)

        static func encode(_ bitmap: Bitmap) -> Data {
            var data = magic
            for side in [bitmap.width, bitmap.height] { data.append(contentsOf: [UInt8(side >> 8), UInt8(side & 0xFF)]) }
            data.append(contentsOf: bitmap.pixels)
            return data
        }

        func recognizeFormat(of data: Data) -> ImageFormat? { data.starts(with: Self.magic) ? Self.format : nil }
        func canDecode(_ format: ImageFormat) -> Bool { format == Self.format }
        func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
            let bytes = [UInt8](data)
            guard bytes.count >= 12 else { throw .decodingFailed(context.url, Self.format, reason: "short header") }
            let width = Int(bytes[8]) << 8 | Int(bytes[9])
            let height = Int(bytes[10]) << 8 | Int(bytes[11])
            guard width > 0, height > 0, bytes.count == 12 + width * height * 4 else {
                throw .decodingFailed(context.url, Self.format, reason: "the pixels do not match the header")
            }
            let bitmap = Bitmap(width: width, height: height, alphaMode: .opaque, pixels: Array(bytes[12...]))
            return try ImageContainer(bitmap: bitmap, format: Self.format)
        }
    }

    @Test func aDecoderRegisteredOnThePipelineServesProxyRequests() async throws {
        let origin = try await TestServer.start()
        // Left half red, right half blue.
        var pixels = [UInt8]()
        for _ in 0..<40 {
            for x in 0..<80 { pixels += x < 40 ? [255, 0, 0, 255] : [0, 0, 255, 255] }
        }
        origin.set(
            "/picture.raw", data: RawRGBADecoder.encode(Bitmap(width: 80, height: 40, alphaMode: .opaque, pixels: pixels)),
            contentType: "application/octet-stream")
        var configuration = ServerTests.local
        configuration.decoders = [RawRGBADecoder()]
        let proxy = ImageProxy.testing(configuration)
        let reply = await proxy.respond(path: ServerTests.path("rs:fit:40:40/f:png", origin.url(for: "/picture.raw")))
        let without = ImageProxy.testing(ServerTests.local)
        let refused = await without.respond(path: ServerTests.path("rs:fit:40:40/f:png", origin.url(for: "/picture.raw")))
        await proxy.shutdown()
        await without.shutdown()
        try await origin.shutdown()

        #expect(reply.status == 200)
        let image = try ImageDecoder.decode(reply.body, url: nil).bitmap()
        #expect(image.width == 40 && image.height == 20)
        let left = Array(image.pixels[(10 * 40 + 5) * 4..<(10 * 40 + 5) * 4 + 4])
        let right = Array(image.pixels[(10 * 40 + 35) * 4..<(10 * 40 + 35) * 4 + 4])
        #expect(left[0] > 240 && left[2] < 15, "red stays red: \(left)")
        #expect(right[2] > 240 && right[0] < 15, "blue stays blue: \(right)")
        #expect(refused.status == 415, "without the decoder the bytes are not an image")
    }

    /// One 48 MP source asked large and twenty 1 MP sources asked at two sizes each, all at once:
    /// the decoded tier and the decodes in flight stay within their budgets, and every small
    /// source is decoded once for both its sizes.
    @Test func aBurstOfLargeAndSmallSourcesStaysWithinTheBudgets() async throws {
        let origin = try await TestServer.start()
        let large = try JPEGEncoder(quality: 0.5).encode(Bitmap(width: 8000, height: 6000, fill: RGBA(90, 120, 150)))
        origin.set("/large.jpg", data: large, contentType: "image/jpeg")
        for index in 0..<20 {
            origin.set("/\(index).jpg", data: try Fixtures.jpeg(width: 1000, height: 1000, seed: index), contentType: "image/jpeg")
        }
        let tierBytes = 8 * 1024 * 1024
        let decodingBytes = 32 * 1024 * 1024
        var configuration = ServerTests.local
        configuration.decodedSourceBytes = tierBytes
        configuration.decodingBytes = decodingBytes
        configuration.maximumQueuedRequests = 100
        configuration.loaderConfiguration.maximumBodySize = 50 * 1024 * 1024
        let proxy = ImageProxy.testing(configuration)
        var paths = [ServerTests.path("w:4000/f:jpeg", origin.url(for: "/large.jpg"))]
        for index in 0..<20 {
            for width in [100, 120] { paths.append(ServerTests.path("w:\(width)/f:jpeg", origin.url(for: "/\(index).jpg"))) }
        }
        let statuses = await withTaskGroup(of: Int.self) { group in
            for path in paths { group.addTask { await proxy.respond(path: path).status } }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        let statistics = proxy.pipeline.statistics()
        await proxy.shutdown()
        try await origin.shutdown()

        #expect(statuses == Array(repeating: 200, count: paths.count))
        // The large source at 1/2 is 4000x3000 (48 MB), over the decode budget: it ran alone.
        let largestDecode = 4000 * 3000 * 4
        #expect(statistics.peakDecodingBytes <= max(decodingBytes, largestDecode), "\(statistics.peakDecodingBytes)")
        #expect(statistics.decodingBytes == 0)
        #expect(statistics.decodedOriginalsCost <= tierBytes)
        #expect(statistics.decodedOriginalsCount == 20, "the large decode is over an entry's share: not kept")
        #expect(statistics.decodeCount == 21, "one decode per source: the small ones' second sizes came from the tier")
        // Downloads: a second size that arrives after the first one's download ended, but before
        // its decode started, downloads again (then finds the decode kept): at most two.
        for index in 0..<20 { #expect((1...2).contains(origin.requestCount(for: "/\(index).jpg"))) }
    }
}
#endif
