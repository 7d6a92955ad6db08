#if os(Linux)
import Foundation
import Imago
import Testing

@testable import ImagoServer

/// imgproxy's `enforce_thumbnail` (`eth`) and `IMGPROXY_ENFORCE_THUMBNAIL`: a HEIF source's
/// embedded thumbnail processed instead of its primary image, and told apart in the caches.
@Suite struct ProxyEmbeddedThumbnailTests {
    /// ImagoTests' `Fixtures/thumbnail/thumbnail.heic` (see its README): 96x64, a 24x16 thumbnail.
    static func heic() throws -> Data {
        try #require(Data(base64Encoded: Self.base64.joined()))
    }

    static let base64 = [
        "AAAAKGZ0eXBoZWljAAAAAG1pZjFoZWljbWlhZm1pZjFoZWljbWlhZgAAAoZtZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0",
        "AAAAAAAAAAAAAAAAAAAAAA5waXRtAAAAAAABAAAAEGlkYXQAAAAAABgAEAAAAExpbG9jAQAAAERAAAMAAQAAAAAAAAK2AAEA",
        "AAAAAAAAvQACAAAAAAAAA3MAAQAAAAAAAABhAAMAAQAAAAAAAAABAAAAAAAAAAgAAABNaWluZgAAAAAAAwAAABVpbmZlAgAA",
        "AAABAABodmMxAAAAABVpbmZlAgAAAQACAABodmMxAAAAABVpbmZlAgAAAAADAABncmlkAAAAAXppcHJwAAABUmlwY28AAAB4",
        "aHZjQwEDcAAAAAAAAAAAAB7wAPz9+PgAAA8DIAABABhAAQwB//8DcAAAAwCQAAADAAADAB66AkAhAAEAK0IBAQNwAAADAJAA",
        "AAMAAAMAHqAwgQWW6kkprm4EBAwIAAADAAgAAAMACEAiAAEAB0QBwXKwIkAAAAAUaXNwZQAAAAAAAABgAAAAQAAAABBwaXhp",
        "AAAAAAMICAgAAAB2aHZjQwEDcAAAAAAAAAAAAB7wAPz9+PgAAA8DIAABABhAAQwB//8DcAAAAwCQAAADAAADAB66AkAhAAEA",
        "KkIBAQNwAAADAJAAAAMAAAMAHqAggQWW6q6a5uBAQMCAAAADAIAAAAMAhCIAAQAGRAHBc8GJAAAAFGlzcGUAAAAAAAAAQAAA",
        "AEAAAAAUaXNwZQAAAAAAAAAYAAAAEAAAABBwaXhpAAAAAAMICAgAAAAgaXBtYQAAAAAAAAADAAEDgQKDAAIChAUAAwIGhwAA",
        "AChpcmVmAAAAAAAAAA5kaW1nAAMAAQACAAAADnRobWIAAwABAAEAAAEmbWRhdAAAALkoAa8J4NaDmuqY6kWQ0vgn9+x9h9Vq",
        "VdNMU0EEFA66ArtfS+MXskRYw23QXt9k92bJP9CouCqbWS6kUwF5KyX90uc8ILINhliw5PUKTtIFtfWMNNd/NptsDU1ad4SO",
        "8vhR0mqsQQAVCqPgCTaBa5Vh73XZ8OLi4TkhleMuARuiPjkmVqVcJsPxh8meafC//uBsuHWYlNtP13zUmhAUI2PvPujIROSn",
        "qUqdzcOj2DBFkAIf09vsksE1wAAAAF0oAa8JyGxTHj3sjvCuV8/QZodk8n7/X5nwOEtzYnSwB6Jxl1mXihcKZ2G91e52JZbD",
        "deoHCQnPt2yC/VfMHSgnsSGLHlB+Zr/cGQZzn0D9l81wmPSH6J2vDTC91+4=",
    ]

    static func size(_ proxy: ImageProxy, _ options: String, _ source: URL) async throws -> PixelSize {
        let image = try ProxyOptionsTests.image(await proxy.respond(path: ServerTests.path(options, source)))
        return PixelSize(width: image.width, height: image.height)
    }

    @Test func ethProcessesTheEmbeddedThumbnail() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            origin.set("/t.heic", data: try Self.heic(), contentType: "image/heic")
            let source = origin.url(for: "/t.heic")
            #expect(try await Self.size(proxy, "eth:1/rs:fit:0:0/f:png", source) == PixelSize(width: 24, height: 16))
            #expect(try await Self.size(proxy, "eth:0/rs:fit:0:0/f:png", source) == PixelSize(width: 96, height: 64))
            #expect(try await Self.size(proxy, "rs:fit:0:0/f:png", source) == PixelSize(width: 96, height: 64))
            // The geometry applies to the thumbnail: enlarged from it, to the size asked.
            #expect(try await Self.size(proxy, "eth:1/rs:fit:48:0:1/f:png", source) == PixelSize(width: 48, height: 32))
            // Asked again, each from its own cache entry.
            #expect(try await Self.size(proxy, "eth:1/rs:fit:0:0/f:png", source) == PixelSize(width: 24, height: 16))
            // A source without a thumbnail is processed as usual.
            #expect(try await Self.size(proxy, "eth:1/rs:fit:0:0/f:png", origin.url(for: "/q.png")) == PixelSize(width: 400, height: 300))
        }
    }

    @Test func theEnvironmentSetsTheDefault() async throws {
        var configuration = ImageProxyConfiguration()
        #expect(!configuration.enforcesThumbnail)
        try ServeEnvironment(["IMGPROXY_ENFORCE_THUMBNAIL": "true"]).apply(to: &configuration)
        #expect(configuration.enforcesThumbnail)
        #expect(throws: (any Error).self) { try ServeEnvironment(["IMGPROXY_ENFORCE_THUMBNAIL": "maybe"]) }
        try await ProxyOptionsTests.withProxy({ $0.enforcesThumbnail = true }) { proxy, origin in
            origin.set("/t.heic", data: try Self.heic(), contentType: "image/heic")
            let source = origin.url(for: "/t.heic")
            #expect(try await Self.size(proxy, "rs:fit:0:0/f:png", source) == PixelSize(width: 24, height: 16))
            #expect(try await Self.size(proxy, "eth:0/rs:fit:0:0/f:png", source) == PixelSize(width: 96, height: 64))
        }
    }

    @Test func theCanonicalTextTellsTheChoicesApart() throws {
        let on = try ProcessingOptionsTests.options("eth:1").canonical
        let off = try ProcessingOptionsTests.options("eth:0").canonical
        let unset = try ProcessingOptionsTests.options("w:0").canonical
        #expect(on != off && on != unset && off != unset)
    }
}
#endif
