import Foundation
import Imago
import ImagoTestSupport
import Testing

extension LoadingTests {
    /// Hand-made responses no well-behaved server sends, through both loaders and a whole
    /// pipeline: each ends in the right body or a specific error, never a trap or a wrong body.
    @Suite struct HostileResponseTests {
        /// Cache and validator headers that must never stop a good body from loading.
        static let cacheHeaders: [[(String, String)]] = [
            [("Cache-Control", "max-age=")],  // the known trap
            [("Cache-Control", "max-age")],
            [("Cache-Control", "max-age=\"\"")],
            [("Cache-Control", "max-age=\"60\"")],
            [("Cache-Control", "max-age=-1")],
            [("Cache-Control", "max-age=99999999999999999999999999")],
            [("Cache-Control", "max-age=1"), ("Cache-Control", "max-age=2")],
            [("Cache-Control", "")],
            [("Cache-Control", "=,,=,no-store=")],
            [("Expires", "")], [("Expires", "0")], [("Expires", "Fri, 31 Dec 99999 23:59:59 GMT")],
            [("Last-Modified", "")], [("Last-Modified", "yesterday")],
            [("ETag", "")], [("ETag", "\"")], [("ETag", "\"a\""), ("ETag", "\"b\"")],
            [("ETag", String(repeating: "e", count: 6_000))],
            [("Age", "")], [("Age", "-1")], [("Age", "99999999999999999999999")], [("Age", "1.5")],
            [("Retry-After", "")], [("Retry-After", "-1")], [("Retry-After", "1.5")],
            [("Retry-After", "99999999999999999999999")],
        ]

        static func body() throws -> Data { try Fixtures.jpeg(width: 16, height: 12) }

        static func respond(_ fields: [(String, String)], body: Data, withLength: Bool = true) -> TestServer.Behavior {
            let length = withLength ? [("Content-Length", String(body.count))] : []
            return .raw(TestServer.rawResponse(fields: [("Content-Type", "image/jpeg")] + length + fields, body: body))
        }

        @Test(arguments: LoaderKind.allCases, 0..<cacheHeaders.count)
        func cacheHeadersNeverStopAGoodBody(_ kind: LoaderKind, index: Int) async throws {
            let body = try Self.body()
            try await withTestServer { server in
                server.setBehavior("/a.jpg", Self.respond(Self.cacheHeaders[index], body: body))
                let response = try await kind.withLoader { try await $0.load(server.url(for: "/a.jpg")) }
                #expect(response.data == body)
            }
        }

        /// The same headers through a pipeline with a disk cache: `HTTPCacheHeaders` reads every
        /// response, which is where `max-age=` trapped.
        @Test(arguments: LoaderKind.allCases, 0..<cacheHeaders.count)
        func cacheHeadersThroughAPipelineLoadAndCache(_ kind: LoaderKind, index: Int) async throws {
            let body = try Self.body()
            try await PipelineFixture.with { fixture in
                fixture.server.setBehavior("/a.jpg", Self.respond(Self.cacheHeaders[index], body: body))
                try await kind.withLoader { loader in
                    var configuration = try fixture.configuration()
                    configuration.dataLoader = loader
                    let pipeline = ImagePipeline(configuration: configuration)
                    let response = try await pipeline.image(for: ImageRequest(url: fixture.server.url(for: "/a.jpg")))
                    #expect(try response.container.bitmap().width == 16)
                    await pipeline.waitForDiskWrites()
                }
                let noStore = Self.cacheHeaders[index].contains { $0.1.lowercased().contains("no-store") }
                #expect(try fixture.diskEntryCount() == (noStore ? 0 : 1))
            }
        }

        enum Outcome: Sendable, CustomTestStringConvertible {
            /// The body, exactly.
            case body
            /// An error of one of these codes; never a body.
            case error(Set<String>)
            /// The body exactly, or an error of one of these codes (transports differ).
            case bodyOr(Set<String>)
            /// The first bytes of the body exactly (all that was declared), or an error of these codes.
            case prefix(Int, Set<String>)

            var testDescription: String { "\(self)" }
        }

        /// Content-Length values: a body that is not exactly what the server declared never loads.
        static let lengths: [(String, String, Outcome)] = [
            ("negative", "-1", .error(["connection_failed"])),
            ("empty", "", .error(["connection_failed"])),
            ("a list of different lengths", "SIZE, 5", .error(["connection_failed"])),
            ("a list of one length", "SIZE, SIZE", .bodyOr(["connection_failed"])),
            ("huge", "99999999999999999999999999", .error(["connection_failed", "body_too_large"])),
            ("over the limit", "9223372036854775807", .error(["connection_failed", "body_too_large"])),
            // The declared 5 bytes are the whole response: what follows cannot be told from garbage.
            ("shorter than the body", "5", .prefix(5, ["connection_failed", "body_length_mismatch"])),
            ("longer than the body", "SIZE0", .error(["connection_failed", "body_length_mismatch"])),
            ("hex", "0x10", .error(["connection_failed"])),
            ("with a plus", "+SIZE", .error(["connection_failed"])),
        ]

        @Test(arguments: LoaderKind.allCases, 0..<lengths.count)
        func contentLength(_ kind: LoaderKind, index: Int) async throws {
            let body = try Self.body()
            let (_, template, outcome) = Self.lengths[index]
            let value = template.replacing("SIZE", with: String(body.count))
            #if os(Linux)
            // FoundationNetworking converts curl's Content-Length (a Double) to Int64 unchecked
            // and traps at 2^63 and beyond, before any delegate sees the response: a
            // swift-corelibs-foundation bug no loader code can intercept. HTTPClientDataLoader,
            // the Linux default, is tested with these values.
            if kind == .urlSession, value.count >= 19 { return }
            #endif
            try await withTestServer { server in
                server.setBehavior(
                    "/a.jpg", Self.respond([("Content-Length", value)], body: body, withLength: false))
                let result = try await kind.withLoader { loader -> Result<Data, ImagePipeline.Error> in
                    do throws(ImagePipeline.Error) {
                        return .success(try await loader.load(server.url(for: "/a.jpg")).data)
                    } catch {
                        return .failure(error)
                    }
                }
                switch (outcome, result) {
                case (.body, .success(let data)), (.bodyOr, .success(let data)):
                    #expect(data == body)
                case (.prefix(let count, _), .success(let data)):
                    #expect(data == body.prefix(count))
                case (.error(let codes), .failure(let error)), (.bodyOr(let codes), .failure(let error)),
                    (.prefix(_, let codes), .failure(let error)):
                    #expect(codes.contains(error.code), "\(error)")
                default:
                    Issue.record("Content-Length \(value): expected \(outcome), got \(result)")
                }
            }
        }

        @Test(arguments: LoaderKind.allCases, [
            Data("garbage\r\n\r\n".utf8), Data("HTTP/1.1 abc OK\r\n\r\n".utf8), Data([0, 1, 2, 0xFF, 0xFE]),
            Data("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel".utf8),
        ])
        func garbageIsAnError(_ kind: LoaderKind, bytes: Data) async throws {
            try await withTestServer { server in
                server.setBehavior("/a.jpg", .raw(bytes))
                let url = server.url(for: "/a.jpg")
                let error = try await kind.withLoader { await $0.error(loading: url) }
                #expect(error != nil)
                #expect(error?.url == url)
            }
        }
    }
}
