#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `IMGPROXY_SET_CANONICAL_HEADER` (`Link: <source>; rel="canonical"` for http(s)
/// sources), `IMGPROXY_ENABLE_DEBUG_HEADERS` (`X-Origin-*`, `X-Result-*`) and
/// `IMGPROXY_DEVELOPMENT_ERRORS_MODE` (an error's `detail` in its body).
@Suite struct ResponseHeaderSettingsTests {
    @Test func theEnvironmentSetsBoth() throws {
        var configuration = ImageProxyConfiguration()
        #expect(!configuration.setsCanonicalHeader && !configuration.sendsDebugHeaders)
        try ServeEnvironment(["IMGPROXY_SET_CANONICAL_HEADER": "true", "IMGPROXY_ENABLE_DEBUG_HEADERS": "1"]).apply(to: &configuration)
        #expect(configuration.setsCanonicalHeader && configuration.sendsDebugHeaders)
        for name in ["IMGPROXY_SET_CANONICAL_HEADER", "IMGPROXY_ENABLE_DEBUG_HEADERS"] {
            #expect {
                _ = try ServeEnvironment([name: "on"])
            } throws: { error in
                (error as? ServeEnvironmentError)?.variable == name
            }
        }
    }

    @Test func developmentErrorsModeSendsTheDetailThatOtherwiseOnlyTheLogGets() async throws {
        var configuration = ImageProxyConfiguration()
        #expect(!configuration.sendsErrorDetails)
        try ServeEnvironment(["IMGPROXY_DEVELOPMENT_ERRORS_MODE": "true"]).apply(to: &configuration)
        #expect(configuration.sendsErrorDetails)
        #expect {
            _ = try ServeEnvironment(["IMGPROXY_DEVELOPMENT_ERRORS_MODE": "yes please"])
        } throws: { error in
            (error as? ServeEnvironmentError)?.variable == "IMGPROXY_DEVELOPMENT_ERRORS_MODE"
        }
        for sendsDetails in [false, true] {
            try await ProxyOptionsTests.withProxy({ $0.sendsErrorDetails = sendsDetails }) { proxy, origin in
                let answer = await proxy.respond(path: ServerTests.path("w:30", origin.url(for: "/missing.png")))
                #expect(answer.status == 404)
                let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
                let error = try #require(object?["error"] as? [String: String])
                #expect(error["code"] == "source_not_found" && error["message"] == "the source answered HTTP 404")
                if sendsDetails {
                    #expect(error["detail"]?.contains("the server answered HTTP 404") == true)
                } else {
                    #expect(error["detail"] == nil)
                }
            }
        }
    }

    @Test func anHTTPSourceIsNamedCanonicalAndSizesAreReported() async throws {
        try await ProxyOptionsTests.withProxy({ configuration in
            configuration.setsCanonicalHeader = true
            configuration.sendsDebugHeaders = true
        }) { proxy, origin in
            let source = origin.url(for: "/q.png")
            let quadrants = ProxyOptionsTests.quadrants()
            let sourceSize = PixelSize(width: quadrants.width, height: quadrants.height)
            let answer = await proxy.respond(path: ServerTests.path("rs:fit:30:30/f:png", source))
            try #require(answer.status == 200)
            #expect(answer.header("Link") == "<\(source.absoluteString)>; rel=\"canonical\"")
            let result = try #require(ServerTests.size(of: answer.body))
            #expect(answer.header("X-Result-Width") == "\(result.width)" && answer.header("X-Result-Height") == "\(result.height)")
            #expect(answer.header("X-Origin-Width") == "\(sourceSize.width)" && answer.header("X-Origin-Height") == "\(sourceSize.height)")
            #expect(result.width <= 30 && sourceSize.width > 30)
        }
        try await ProxyOptionsTests.withProxy { proxy, origin in
            let answer = await proxy.respond(path: ServerTests.path("w:30", origin.url(for: "/q.png")))
            #expect(answer.status == 200 && answer.header("Link") == nil && answer.header("X-Origin-Width") == nil)
        }
    }
}
#endif
