#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's URL settings as ``ProcessingPath/Rules``: `IMGPROXY_BASE_URL`,
/// `IMGPROXY_URL_REPLACEMENTS`, `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`,
/// `IMGPROXY_ARGUMENTS_SEPARATOR`, `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`: read from the
/// environment, applied by the parser, and through a proxy.
@Suite struct ProcessingPathRulesTests {
    static func encoded(_ url: String) -> String { Base64URL.encode(Array(url.utf8)) }

    @Test func theBaseURLGoesBeforeASourceThatLacksIt() throws {
        var rules = ProcessingPath.Rules()
        rules.baseURL = "https://cdn.example.com/"
        let relative = try ProcessingPath.parse("/_/w:10/plain/images/a.jpg", rules: rules)
        #expect(relative.source.absoluteString == "https://cdn.example.com/images/a.jpg")
        let whole = try ProcessingPath.parse("/_/w:10/plain/https://cdn.example.com/b.jpg", rules: rules)
        #expect(whole.source.absoluteString == "https://cdn.example.com/b.jpg", "not added twice")
        let base64 = try ProcessingPath.parse("/_/w:10/" + Self.encoded("c.png") + ".webp", rules: rules)
        #expect(base64.source.absoluteString == "https://cdn.example.com/c.png" && base64.options.format == .webp)
    }

    @Test func replacementsRewriteTheStartWithTheStarsRuns() throws {
        var rules = ProcessingPath.Rules()
        rules.urlReplacements = [
            .init(pattern: "mys3://", replacement: "https://mybucket.s3.amazonaws.com/"),
            .init(pattern: "https://*.legacy.example/", replacement: "https://${1}.example.com/$1/"),
        ]
        let s3 = try ProcessingPath.parse("/_/w:10/plain/mys3://a/b.jpg", rules: rules)
        #expect(s3.source.absoluteString == "https://mybucket.s3.amazonaws.com/a/b.jpg")
        let legacy = try ProcessingPath.parse("/_/w:10/plain/https://img.legacy.example/x.jpg", rules: rules)
        #expect(legacy.source.absoluteString == "https://img.example.com/img/x.jpg")
        let elsewhere = try ProcessingPath.parse("/_/w:10/plain/https://other.example/mys3://x.jpg", rules: rules)
        #expect(elsewhere.source.absoluteString == "https://other.example/mys3://x.jpg", "only at the start")
        // A star stays within one segment: `https://a/b.legacy.example/` is not rewritten.
        let nested = try ProcessingPath.parse("/_/w:10/plain/https://a/b.legacy.example/x.jpg", rules: rules)
        #expect(nested.source.absoluteString == "https://a/b.legacy.example/x.jpg")
    }

    /// Stars that could split one long segment many ways: a path of 4,000 `a`s against a pattern of
    /// six stars has about 10^18 ways to try. The greedy match is still found (the first star takes
    /// all it can), and a pattern that cannot match gives up after `maximumSteps` places and leaves
    /// the URL as it was.
    @Test func manyStarsOverALongSegmentMatchGreedilyOrNotAtAll() throws {
        let run = String(repeating: "a", count: 4_000)
        let matching = ProcessingPath.Rules.Replacement(pattern: "https://*a*a*a*a*a*.example/", replacement: "https://$1-$6.test/")
        #expect(matching.apply(to: "https://\(run).example/x.jpg") == "https://\(run.dropLast(5))-.test/x.jpg")
        let missing = ProcessingPath.Rules.Replacement(pattern: "https://*a*a*a*a*a*b/", replacement: "https://$1/")
        #expect(missing.apply(to: "https://\(run)/x.jpg") == "https://\(run)/x.jpg")
        // Within the steps, a miss over a short segment is a miss too.
        #expect(missing.apply(to: "https://aaaa/x.jpg") == "https://aaaa/x.jpg")
    }

    @Test func aBase64SourceMayEndWithAFileName() throws {
        let source = Self.encoded("https://example.com/images/photo.jpg")
        let half = source.index(source.startIndex, offsetBy: source.count / 2)
        let path = "/_/w:10/\(source[..<half])/\(source[half...]).png/photo.png"
        #expect(throws: ProcessingPathError.self) { try ProcessingPath.parse(path) }
        var rules = ProcessingPath.Rules()
        rules.base64URLIncludesFilename = true
        let parsed = try ProcessingPath.parse(path, rules: rules)
        #expect(parsed.source.absoluteString == "https://example.com/images/photo.jpg" && parsed.options.format == .png)
        let single = try ProcessingPath.parse("/_/w:10/\(source)", rules: rules)
        #expect(single.source.absoluteString == "https://example.com/images/photo.jpg", "one segment is the source itself")
    }

    @Test func anotherArgumentsSeparatorSplitsOptionsButNotPresets() throws {
        var rules = ProcessingPath.Rules()
        rules.argumentsSeparator = ","
        let presets = try ProcessingPresets(definitions: ["small=rs:fit:50:40"])
        let parsed = try ProcessingPath.parse("/_/rs,fill,300,200/q,70/pr,small/plain/https://example.com/a.jpg", presets: presets, rules: rules)
        #expect(parsed.options.width == 50 && parsed.options.height == 40 && parsed.options.quality == 0.7)
        // With `,` as the separator, `w:10` is no option: it is read as the start of a source.
        #expect(throws: ProcessingPathError.self) { try ProcessingPath.parse("/_/w:10/plain/https://example.com/a.jpg", rules: rules) }
    }

    @Test func onlyAllowedOptionsMayBeUsedByTheirSpelling() throws {
        var rules = ProcessingPath.Rules()
        rules.allowedOptions = ["rs", "q", "pr"]
        let presets = try ProcessingPresets(definitions: ["blurred=bl:2"])
        let parsed = try ProcessingPath.parse("/_/rs:fit:10:10/q:50/pr:blurred/plain/https://example.com/a.jpg", presets: presets, rules: rules)
        #expect(parsed.options.blurSigma == 2, "a preset may use any option")
        for path in ["/_/resize:fit:10:10/plain/https://example.com/a.jpg", "/_/bl:2/plain/https://example.com/a.jpg"] {
            #expect {
                try ProcessingPath.parse(path, presets: presets, rules: rules)
            } throws: { error in
                (error as? ProcessingPathError)?.code == "forbidden_option"
            }
        }
    }

    @Test func theEnvironmentSetsTheRulesAndNamesABadValue() throws {
        let environment = try ServeEnvironment([
            "IMGPROXY_BASE_URL": "https://cdn.example.com/", "IMGPROXY_URL_REPLACEMENTS": "a://=https://a.example/;b://*/=https://$1.b/",
            "IMGPROXY_BASE64_URL_INCLUDES_FILENAME": "true", "IMGPROXY_ARGUMENTS_SEPARATOR": ",",
            "IMGPROXY_ALLOWED_PROCESSING_OPTIONS": "rs, q,f",
        ])
        let rules = try #require(environment.pathRules)
        #expect(rules.baseURL == "https://cdn.example.com/" && rules.base64URLIncludesFilename && rules.argumentsSeparator == ",")
        #expect(rules.urlReplacements == [.init(pattern: "a://", replacement: "https://a.example/"), .init(pattern: "b://*/", replacement: "https://$1.b/")])
        #expect(rules.allowedOptions == ["rs", "q", "f"])
        var configuration = ImageProxyConfiguration()
        try environment.apply(to: &configuration)
        #expect(configuration.pathRules == rules)
        #expect(try ServeEnvironment([:]).pathRules == nil)
        for (name, value) in [("IMGPROXY_URL_REPLACEMENTS", "a://"), ("IMGPROXY_ARGUMENTS_SEPARATOR", "/"), ("IMGPROXY_BASE64_URL_INCLUDES_FILENAME", "yes")] {
            #expect {
                _ = try ServeEnvironment([name: value])
            } throws: { error in
                (error as? ServeEnvironmentError)?.variable == name
            }
        }
    }

    /// Through a proxy: a relative source under the base URL is fetched, and a forbidden option answers 403.
    @Test func theProxyReadsPathsByItsRules() async throws {
        try await ProxyOptionsTests.withProxy({ configuration in
            configuration.pathRules.allowedOptions = ["w", "f"]
        }) { proxy, origin in
            let forbidden = await proxy.respond(path: ServerTests.path("h:10", origin.url(for: "/q.png")))
            #expect(forbidden.status == 403 && forbidden.body.count > 0)
        }
        try await ProxyOptionsTests.withProxy { proxy, origin in
            _ = proxy
            var configuration = ServerTests.local
            configuration.pathRules.baseURL = origin.url(for: "/").absoluteString
            let based = ImageProxy.testing(configuration)
            let answer = await based.respond(path: "/insecure/w:20/plain/q.png")
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            await based.shutdown()
        }
    }
}
#endif
