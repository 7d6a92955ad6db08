#if os(Linux)
import Foundation
import Imago
import Testing

@testable import ImagoServer

/// `f:gif` and `.gif`: still images written as GIF; and the `Content-Disposition` header.
@Suite struct ProxyGIFOutputTests {
    @Test func writesGIF() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            for path in [
                ServerTests.path("w:100/f:gif", origin.url(for: "/q.png")), ServerTests.path("w:100", origin.url(for: "/q.png"), format: "gif"),
            ] {
                let response = await proxy.respond(path: path)
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == "image/gif")
                #expect(ServerTests.size(of: response.body) == PixelSize(width: 100, height: 75))
                let bitmap = try ProxyOptionsTests.image(response)
                #expect(ProxyOptionsTests.near(bitmap[10, 10], ProxyOptionsTests.red, tolerance: 64))
                #expect(response.header("Content-Disposition") == "inline; filename=\"q.gif\"")
            }
        }
    }

    @Test func sendsTheDisposition() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            let response = await proxy.respond(path: ServerTests.path("fn:r%C3%A9sum%C3%A9/att:1/f:png", origin.url(for: "/q.png")))
            #expect(response.header("Content-Disposition") == "attachment; filename=\"r_sum_.png\"; filename*=UTF-8''r%C3%A9sum%C3%A9.png")
        }
    }
}
#endif
