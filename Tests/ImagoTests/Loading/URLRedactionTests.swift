import Foundation
import Imago
import ImagoTestSupport
import Logging
import Testing

/// Secrets in URLs (user:password, query strings, fragments) stay out of error descriptions and
/// logs unless the caller opts in.
@Suite struct URLRedactionTests {
    static let secretURL = URL(string: "https://alice:hunter2@images.example.com/a.jpg?token=s3cr3t&sig=abc#access_token=xyz")!
    static let secrets = ["alice", "hunter2", "s3cr3t", "sig=abc", "xyz"]

    @Test(
        "The user, password, query and fragment are redacted; scheme, host, port and path stay",
        arguments: [
            ("https://alice:hunter2@images.example.com/a.jpg?token=s3cr3t#t=xyz", "https://redacted@images.example.com/a.jpg?redacted#redacted"),
            ("http://127.0.0.1:8080/a%20b.jpg", "http://127.0.0.1:8080/a%20b.jpg"),
            ("http://bob@h/a.jpg?", "http://redacted@h/a.jpg?redacted"),
        ])
    func redactedDescription(url: String, expected: String) throws {
        #expect(try #require(URL(string: url)).redactedDescription == expected)
    }

    @Test("Every error's description redacts its URL; description(redactingURLs: false) opts in")
    func errorDescriptions() {
        let url = Self.secretURL
        let errors: [ImagePipeline.Error] = [
            .unsupportedScheme(url), .httpStatus(url, statusCode: 404), .bodyTooLarge(url, limit: 1),
            .bodyLengthMismatch(url, expected: 2, received: 1), .timedOut(url, .stall, after: .seconds(1)),
            .connectionFailed(url, reason: "reset"), .emptyBody(url), .unsupportedFormat(url, detail: "html"),
            .decodingFailed(url, .jpeg, reason: "truncated"), .processingFailed(url, processor: "p", reason: "r"),
            .notCached(url), .offline(url), .cancelled(url),
        ]
        for error in errors {
            let text = error.description
            #expect(text.contains("images.example.com/a.jpg"), "\(text)")
            for secret in Self.secrets { #expect(!text.contains(secret), "\(error.code): \(text)") }
            #expect(error.description(redactingURLs: false).contains("hunter2"))
            #expect(error.url == url)
        }
    }

    @Test("A configuration redacts URLs in logs by default")
    func defaultIsRedacted() {
        #expect(ImagePipeline.Configuration(connectivity: .alwaysReachable).redactsURLs)
    }

    @Test("Pipeline logs redact URLs unless redactsURLs is off", arguments: [true, false])
    func logs(redacts: Bool) async throws {
        try await withTestServer { server in
            server.setBehavior("/a.jpg", .status(503))
            var components = URLComponents(url: server.url(for: "/a.jpg"), resolvingAgainstBaseURL: false)!
            components.user = "alice"
            components.password = "hunter2"
            components.query = "token=s3cr3t"
            let url = try #require(components.url)
            let log = LogRecorder()
            var configuration = ImagePipeline.Configuration(
                retryPolicy: RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1)), connectivity: .alwaysReachable,
                logger: log.logger, redactsURLs: redacts)
            configuration.memoryCache = nil
            let pipeline = ImagePipeline(configuration: configuration)
            await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(for: ImageRequest(url: url)) }
            let lines = log.all
            #expect(lines.contains { $0.contains("Retrying") }, "\(lines)")
            let leaked = lines.contains { line in ["hunter2", "s3cr3t"].contains { line.contains($0) } }
            #expect(leaked == !redacts, "\(lines)")
        }
    }
}
