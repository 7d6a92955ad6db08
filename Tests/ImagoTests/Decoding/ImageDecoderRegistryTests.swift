import Foundation
import Imago
import ImagoTestSupport
import Testing

/// A user decoder registered in the pipeline's registry decodes its own format; the built-in
/// decoders still decode theirs.
@Suite struct ImageDecoderRegistryTests {
    /// A text "format" of our own: `PPXT <width> <height> <r> <g> <b>` is an image of one colour.
    struct PlainPixelDecoder: ImageDecoding {
        static let format = ImageFormat("ppxt", mimeType: "text/x-plain-pixels")

        func recognizeFormat(of data: Data) -> ImageFormat? {
            data.starts(with: Array("PPXT ".utf8)) ? Self.format : nil
        }

        func canDecode(_ format: ImageFormat) -> Bool { format == Self.format }

        func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
            let fields = String(decoding: data, as: UTF8.self).split(separator: " ").dropFirst().compactMap { Int($0) }
            guard fields.count == 5, fields[0] > 0, fields[1] > 0, fields[2...].allSatisfy({ (0...255).contains($0) })
            else { throw .decodingFailed(context.url, Self.format, reason: "expected PPXT width height r g b") }
            try context.limits.check(width: fields[0], height: fields[1], url: context.url)
            let color = RGBA(UInt8(fields[2]), UInt8(fields[3]), UInt8(fields[4]))
            return try ImageContainer(bitmap: Bitmap(width: fields[0], height: fields[1], fill: color), format: Self.format)
        }
    }

    @Test func registryConsultsUserDecodersFirst() {
        var registry = ImageDecoderRegistry()
        #expect(registry.sniff(Data("PPXT 1 1 0 0 0".utf8)) == nil)
        #expect(!registry.canDecode(PlainPixelDecoder.format))
        registry.register(PlainPixelDecoder())
        #expect(registry.sniff(Data("PPXT 1 1 0 0 0".utf8)) == PlainPixelDecoder.format)
        #expect(registry.decoder(for: PlainPixelDecoder.format) is PlainPixelDecoder)
        #expect(registry.decoder(for: .png) is ImageDecoder)
        #expect(registry.decoders.count == 2)
    }

    @Test func unknownFormatSaysHowToAddOne() {
        let registry = ImageDecoderRegistry()
        let context = DecodingContext(format: ImageFormat("svg"))
        let error = #expect(throws: ImagePipeline.Error.self) { try registry.decode(Data("<svg/>".utf8), context: context) }
        guard case .unsupportedFormat(_, let detail)? = error else {
            Issue.record("expected unsupportedFormat, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("ImageDecoderRegistry"))
    }

    @Test func pipelineUsesTheRegisteredDecoderAndTheBuiltIns() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.set("/swatch.ppxt", data: Data("PPXT 6 4 10 200 30".utf8), contentType: "text/plain")
            let jpegURL = try fixture.serveJPEG()
            let heif = try Fixture.named("heif-lossy").data()
            fixture.server.set("/photo.heic", data: heif, contentType: "image/heic")

            var configuration = try fixture.configuration()
            configuration.decoders.register(PlainPixelDecoder())
            let pipeline = ImagePipeline(configuration: configuration)

            let swatch = try await pipeline.image(for: ImageRequest(url: fixture.server.url(for: "/swatch.ppxt")))
            #expect(swatch.format == PlainPixelDecoder.format)
            let bitmap = try swatch.container.bitmap()
            #expect(bitmap.width == 6 && bitmap.height == 4)
            #expect(Array(bitmap.pixels.prefix(4)) == [10, 200, 30, 255])

            let photo = try await pipeline.image(for: ImageRequest(url: jpegURL))
            #expect(photo.format == .jpeg)
            let heic = try await pipeline.image(for: ImageRequest(url: fixture.server.url(for: "/photo.heic")))
            #expect(heic.format == .heif && heic.container.pixelSize == PixelSize(width: 32, height: 24))

            // Without the registration the same bytes are refused with a readable error.
            let plain = try fixture.makePipeline()
            await #expect(throws: ImagePipeline.Error.self) {
                _ = try await plain.image(for: ImageRequest(url: fixture.server.url(for: "/swatch.ppxt")))
            }
        }
    }
}
