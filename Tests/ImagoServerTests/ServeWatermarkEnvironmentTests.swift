#if os(Linux)
import AsyncHTTPClient
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// The built `imago serve`, configured by imgproxy's variables alone (no flags but the test's port
/// and cache folder): a path signed with imgproxy's algorithm (`IMGPROXY_KEY`, `IMGPROXY_SALT`), a
/// `local://` source (`IMGPROXY_LOCAL_FILESYSTEM_ROOT`), trimmed, and the watermark of
/// `IMGPROXY_WATERMARK_PATH` at `IMGPROXY_WATERMARK_OPACITY`, checked in the output's pixels.
@Suite struct ServeWatermarkEnvironmentTests {
    @Test func imgproxysWatermarkVariablesReachTheOutput() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imago-wm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // 200x100: a white border 10 pixels wide around grey, which `t:10` cuts to 180x80.
        var source = Bitmap(width: 200, height: 100, fill: RGBA(255, 255, 255))
        for y in 10..<90 { for x in 10..<190 { source[x, y] = RGBA(128, 128, 128) } }
        try PNGEncoder().encode(source).write(to: root.appendingPathComponent("framed.png"))
        let markFile = folder.appendingPathComponent("mark.png")
        try PNGEncoder().encode(ProxyWatermarkTests.mark).write(to: markFile)
        let key = URLSignerTests.key
        let salt = URLSignerTests.salt
        let environment = [
            "IMGPROXY_KEY": key, "IMGPROXY_SALT": salt, "IMGPROXY_LOCAL_FILESYSTEM_ROOT": root.path,
            "IMGPROXY_WATERMARK_PATH": markFile.path, "IMGPROXY_WATERMARK_OPACITY": "0.5",
            "IMAGO_KEY": "", "IMAGO_SALT": "", "IMAGO_KEY_FILE": "",
        ]
        try await withServeProcess(arguments: [], environment: environment, in: folder) { serve, client in
            let signer = URLSigner(pairs: [(URLSigner.bytes(fromHex: key) ?? [], URLSigner.bytes(fromHex: salt) ?? [])])
            let get: (String) async throws -> (status: Int, body: Data) = { part in
                // imgproxy's signature: HMAC-SHA256 of the salt and the path, base64url
                // (URLSignerTests pins URLSigner to an independent implementation).
                let url = "http://127.0.0.1:\(serve.port)/\(signer.signature(for: part))\(part)"
                let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 4 * 1024 * 1024)
                return (Int(response.status.code), Data(body.readableBytesView))
            }
            // Trimmed to 180x80, fitted to 90x40; the 20x10 mark in the south-east corner at
            // (70, 30), at opacity 1 x 0.5: red over grey (191, 64, 64), blue (64, 64, 191).
            let answer = try await get("/t:10/rs:fit:90:0/wm:1:soea/plain/local:///framed.png@png")
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let image = try ImageDecoderRegistry().decode(answer.body).bitmap()
            #expect(image.width == 90 && image.height == 40)
            let grey = RGBA(128, 128, 128)
            for (x, y, color) in [
                (71, 31, RGBA(192, 64, 64)), (78, 38, RGBA(192, 64, 64)), (81, 31, RGBA(64, 64, 192)), (88, 38, RGBA(64, 64, 192)),
                (68, 31, grey), (75, 28, grey), (10, 10, grey), (0, 0, grey),
            ] {
                #expect(ProxyOptionsTests.near(image[x, y], color, tolerance: 3), "\(x),\(y): \(image[x, y])")
            }
            // An unsigned path is refused: the key came from the environment.
            let url = "http://127.0.0.1:\(serve.port)/insecure/wm:1/plain/local:///framed.png@png"
            let unsigned = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            #expect(unsigned.status.code == 403)
        }
    }
}
#endif
