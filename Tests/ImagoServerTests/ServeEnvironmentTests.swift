#if os(Linux)
import Foundation
import Imago
import Testing

@testable import ImagoServer

/// imgproxy's environment read as `imago serve` reads it: names, units and defaults, errors that
/// name the variable (never a secret's value), and imgproxy's signatures with several keys and a
/// shorter signature size.
@Suite struct ServeEnvironmentTests {
    @Test func anEmptyEnvironmentSetsNothing() throws {
        let environment = try ServeEnvironment([:])
        #expect(environment.host == nil && environment.port == nil && environment.ttl == nil && environment.workers == nil)
        var configuration = ImageProxyConfiguration()
        try environment.apply(to: &configuration)
        #expect(configuration.defaultQuality == 0.8 && configuration.formatQualities == [.jxl: 0.77])
        #expect(!configuration.passesCacheControlThrough)
    }

    @Test func readsImgproxysNamesAndUnits() throws {
        let environment = try ServeEnvironment([
            "IMGPROXY_BIND": ":9000", "IMGPROXY_WORKERS": "3", "IMGPROXY_REQUESTS_QUEUE_SIZE": "0",
            "IMGPROXY_MAX_SRC_RESOLUTION": "16.8", "IMGPROXY_MAX_SRC_FILE_SIZE": "1048576", "IMGPROXY_TTL": "600",
            "IMGPROXY_QUALITY": "70", "IMGPROXY_FORMAT_QUALITY": "webp=79, avif=63", "IMGPROXY_PRESETS": "thumb=rs:fill:100:100,small=w:50",
            "IMGPROXY_ONLY_PRESETS": "true", "IMGPROXY_ALLOWED_SOURCES": "https://a.example/, local:///",
            "IMGPROXY_DOWNLOAD_TIMEOUT": "7", "IMGPROXY_READ_REQUEST_TIMEOUT": "4", "IMGPROXY_WRITE_RESPONSE_TIMEOUT": "5",
            "IMGPROXY_KEEP_ALIVE_TIMEOUT": "6", "IMGPROXY_MAX_CLIENTS": "100", "IMGPROXY_LOCAL_FILESYSTEM_ROOT": "/srv/images",
            "IMGPROXY_HEALTH_CHECK_PATH": "ping/?x=1", "IMGPROXY_CACHE_CONTROL_PASSTHROUGH": "1", "IMGPROXY_STRIP_COLOR_PROFILE": "f",
            "IMGPROXY_USER_AGENT": "edge/1", "IMGPROXY_MAX_RESULT_DIMENSION": "2000",
        ])
        #expect(environment.host == "0.0.0.0" && environment.port == 9000)
        #expect(environment.workers == 3 && environment.queueSize == 100_000)
        #expect(environment.maximumSourcePixels == 16_800_000 && environment.maximumSourceBytes == 1_048_576)
        #expect(environment.ttl == 600 && environment.maximumResultDimension == 2000)
        #expect(environment.presets == ["thumb=rs:fill:100:100", "small=w:50"] && environment.onlyPresets == true)
        #expect(environment.allowedSources == ["https://a.example/", "local:///"])
        #expect(environment.readRequestTimeout == 4 && environment.writeResponseTimeout == 5 && environment.keepAliveTimeout == 6)
        #expect(environment.maximumClients == 100 && environment.localFilesystemRoot == "/srv/images")
        #expect(environment.healthCheckPath == "/ping" && environment.stripsColorProfile == false)
        var configuration = ImageProxyConfiguration()
        try environment.apply(to: &configuration)
        #expect(configuration.defaultQuality == 0.7)
        #expect(configuration.formatQualities == [.webp: 0.79, .avif: 0.63, .jxl: 0.77])
        #expect(configuration.decodingLimits.maximumSourcePixelCount == 16_800_000)
        #expect(configuration.loaderConfiguration.maximumBodySize == 1_048_576)
        #expect(configuration.loaderConfiguration.downloadTimeout == .seconds(7))
        #expect(configuration.loaderConfiguration.userAgent == "edge/1")
        #expect(configuration.passesCacheControlThrough)
    }

    /// `IMGPROXY_PRESETS_PATH`: a file of `name=options` lines (comments and blank lines skipped),
    /// after `IMGPROXY_PRESETS`; a file that cannot be read stops the start, naming the variable.
    @Test func presetsComeFromTheFileToo() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("imago-presets-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("# presets of the shop\n\nthumb=rs:fill:100:100\r\n  hero=w:1200/q:70  \n#off=w:1\n".utf8).write(to: file)
        let environment = try ServeEnvironment(["IMGPROXY_PRESETS": "small=w:50", "IMGPROXY_PRESETS_PATH": file.path])
        #expect(environment.presets == ["small=w:50", "thumb=rs:fill:100:100", "hero=w:1200/q:70"])
        let presets = try ProcessingPresets(definitions: environment.presets)
        #expect(presets.definitions.keys.sorted() == ["hero", "small", "thumb"])
        #expect(throws: ServeEnvironmentError.self) {
            try ServeEnvironment(["IMGPROXY_PRESETS_PATH": file.path + ".missing"])
        }
        do {
            _ = try ServeEnvironment(["IMGPROXY_PRESETS_PATH": "/nonexistent/presets"])
        } catch {
            #expect(error.variable == "IMGPROXY_PRESETS_PATH" && error.description.contains("/nonexistent/presets"))
        }
    }

    @Test func bindTakesAHostAndPortIsItsOwnForm() throws {
        let bound = try ServeEnvironment(["IMGPROXY_BIND": "127.0.0.2:8081", "PORT": "9"])
        #expect(bound.host == "127.0.0.2" && bound.port == 8081)
        let port = try ServeEnvironment(["PORT": "9090"])
        #expect(port.host == "0.0.0.0" && port.port == 9090)
        let empty = try ServeEnvironment(["IMGPROXY_TTL": ""])  // empty is unset, as in imgproxy
        #expect(empty.ttl == nil)
    }

    @Test(arguments: [
        ("IMGPROXY_TTL", "-1"), ("IMGPROXY_TTL", "soon"), ("IMGPROXY_BIND", "localhost"), ("IMGPROXY_WORKERS", "0"),
        ("IMGPROXY_QUALITY", "101"), ("IMGPROXY_MAX_SRC_RESOLUTION", "-2"), ("IMGPROXY_FORMAT_QUALITY", "gif=50"),
        ("IMGPROXY_ONLY_PRESETS", "yes"), ("PORT", "70000"), ("IMGPROXY_DOWNLOAD_TIMEOUT", "0"),
    ])
    func aBadValueNamesItsVariable(name: String, value: String) {
        #expect {
            _ = try ServeEnvironment([name: value])
        } throws: { error in
            guard let error = error as? ServeEnvironmentError else { return false }
            return error.variable == name && error.description.hasPrefix(name)
        }
    }

    /// imgproxy's documented key and salt (URLSignerTests has the signature from Python's hmac).
    static let key = URLSignerTests.key
    static let salt = URLSignerTests.salt
    static let part = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1wbGUuY29tL2ltYWdlcy9jdXJpb3NpdHkuanBn.png"

    @Test func severalKeysAndSaltsEachSign() throws {
        let other = String(repeating: "ab", count: 32)
        let signer = try #require(
            try URLSigner.load(environment: ["IMGPROXY_KEY": "\(other),\(Self.key)", "IMGPROXY_SALT": "cd,\(Self.salt)"]))
        // The second pair's signature (computed independently) is accepted; the first pair signs.
        #expect(signer.check(signature: "4e9HplX3xN8DgbCf3GPatgfy42W8pLOfGHxXdnPxeHw", for: Self.part) == nil)
        #expect(signer.check(signature: signer.signature(for: Self.part), for: Self.part) == nil)
        #expect(signer.signature(for: Self.part) != "4e9HplX3xN8DgbCf3GPatgfy42W8pLOfGHxXdnPxeHw")
    }

    @Test func theSignatureSizeCutsTheHMAC() throws {
        let signer = try #require(
            try URLSigner.load(environment: ["IMGPROXY_KEY": Self.key, "IMGPROXY_SALT": Self.salt, "IMGPROXY_SIGNATURE_SIZE": "8"]))
        #expect(signer.signature(for: Self.part) == "4e9HplX3xN8")  // the first 8 bytes of the whole HMAC
        #expect(signer.check(signature: "4e9HplX3xN8", for: Self.part) == nil)
        #expect(signer.check(signature: "4e9HplX3xN8DgbCf3GPatgfy42W8pLOfGHxXdnPxeHw", for: Self.part) == .mismatch)
    }

    @Test func trustedSignaturesAreAcceptedForAnyPath() throws {
        let signer = try #require(
            try URLSigner.load(environment: ["IMGPROXY_KEY": Self.key, "IMGPROXY_TRUSTED_SIGNATURES": "legacy-one, legacy-two"]))
        #expect(signer.check(signature: "legacy-two", for: Self.part) == nil)
        #expect(signer.check(signature: "legacy-three", for: Self.part) == .mismatch)
    }

    @Test func imgproxyNamesWinOverImagoAliases() throws {
        let signer = try #require(
            try URLSigner.load(environment: [
                "IMGPROXY_KEY": Self.key, "IMGPROXY_SALT": Self.salt, "IMAGO_KEY": String(repeating: "00", count: 32),
            ]))
        #expect(signer.signature(for: Self.part) == "4e9HplX3xN8DgbCf3GPatgfy42W8pLOfGHxXdnPxeHw")
        let alias = try #require(try URLSigner.load(environment: ["IMAGO_KEY": Self.key, "IMAGO_SALT": Self.salt]))
        #expect(alias.signature(for: Self.part) == "4e9HplX3xN8DgbCf3GPatgfy42W8pLOfGHxXdnPxeHw")
    }

    @Test func keyErrorsNameTheVariableButNeverTheSecret() {
        let secret = String(repeating: "7f", count: 31) + "zz"
        for environment in [
            ["IMGPROXY_KEY": secret, "IMGPROXY_SALT": "00"],
            ["IMGPROXY_KEY": "\(Self.key),\(Self.key)", "IMGPROXY_SALT": "00"],
            ["IMGPROXY_KEY": Self.key, "IMGPROXY_SIGNATURE_SIZE": "33"],
        ] {
            do {
                _ = try URLSigner.load(environment: environment)
                Issue.record("\(environment.keys.sorted()) was accepted")
            } catch {
                #expect(error.description.contains("IMGPROXY_"), "\(error)")
                #expect(!error.description.contains(secret) && !error.description.contains(Self.key), "\(error)")
            }
        }
    }

    @Test func allowedSourcesArePrefixesWithStarsWithinASegment() {
        var policy = SourcePolicy()
        policy.allowedSources = ["https://*.example.com/images/", "local:///"]
        policy.allowsLocalFiles = true
        #expect(policy.refusal(for: URL(string: "https://cdn.example.com/images/a.jpg")!) == nil)
        #expect(policy.refusal(for: URL(string: "https://evil.com/x/.example.com/images/a.jpg")!) != nil)
        #expect(policy.refusal(for: URL(string: "https://cdn.example.com/other/a.jpg")!) != nil)
        #expect(policy.refusal(for: URL(string: "local:///a.jpg")!) == nil)
    }
}
#endif
