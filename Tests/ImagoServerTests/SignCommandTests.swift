#if os(Linux)
import Foundation
import ImagoServer
import ImagoTestSupport
import Testing

/// `imago sign`, the built executable: the path it prints is one the server accepts, checked with
/// the server's own presets.
@Suite struct SignCommandTests {
    static let key = String(repeating: "3a", count: 32)
    static let salt = "5eed"
    static let source = "https://images.example.com/photos/a%20b.jpg?size=large&v=2"

    /// Runs `imago sign` with the key and salt in its environment.
    static func sign(_ arguments: [String]) async throws -> CommandResult {
        let executable = try #require(BuiltExecutable.url(named: "imago"), "no built imago beside the test bundle")
        var environment = ProcessInfo.processInfo.environment
        environment["IMAGO_KEY"] = key
        environment["IMAGO_SALT"] = salt
        let result = try await CommandRunner.run(executable, arguments: ["sign"] + arguments, environment: environment)
        #expect(!result.timedOut && !result.terminatedBySignal)
        return result
    }

    /// The printed path, parsed as a server with `presets` parses it, after its signature was
    /// checked as that server checks it.
    static func served(_ result: CommandResult, presets: ProcessingPresets = .none) throws -> ProcessingPath {
        #expect(result.status == 0, "\(result.errorOutput)")
        let path = result.output.trimmingCharacters(in: .newlines)
        let parsed = try ProcessingPath.parse(path, presets: presets)
        let signer = try URLSigner(hexKey: key, hexSalt: salt)
        #expect(signer.check(signature: parsed.signature, for: parsed.signedPart) == nil, "\(path)")
        #expect(parsed.source.absoluteString == URL(string: source)?.absoluteString)
        return parsed
    }

    @Test func optionsAndFormatSignedAsTheServerChecks() async throws {
        for base64 in [false, true] {
            let result = try await Self.sign(
                [Self.source, "--options", "rs:fill:300:200/dpr:2", "--format", "webp"] + (base64 ? ["--base64"] : []))
            let options = try Self.served(result).options
            #expect(options.resizingType == .fill && options.width == 300 && options.height == 200)
            #expect(options.devicePixelRatio == 2 && options.format == .webp)
        }
    }

    @Test func presetsAreCheckedAsTheServerDefinesThem() async throws {
        let presets = try ProcessingPresets(definitions: ["thumb=rs:fill:120:80/q:70"])
        let signed = try await Self.sign([Self.source, "--options", "pr:thumb", "--preset", "thumb=rs:fill:120:80/q:70"])
        let options = try Self.served(signed, presets: presets).options
        #expect(options.width == 120 && options.height == 80 && options.quality == 0.7)

        // Without the server's presets the path cannot be checked: a usage error naming the preset.
        let unknown = try await Self.sign([Self.source, "--options", "pr:thumb"])
        #expect(unknown.status != 0 && unknown.output.isEmpty)
        #expect(unknown.errorOutput.contains("thumb"), "\(unknown.errorOutput)")
        // A preset that is no option is refused as `imago serve` refuses it.
        let broken = try await Self.sign([Self.source, "--options", "pr:thumb", "--preset", "thumb=big"])
        #expect(broken.status != 0 && broken.errorOutput.contains("--preset"), "\(broken.errorOutput)")
    }

    @Test func onlyPresetsPathsNamePresets() async throws {
        let definitions = ["thumb=rs:fill:120:80", "sharp=sh:1.5"]
        let presets = try ProcessingPresets(definitions: definitions, onlyPresets: true)
        let flags = definitions.flatMap { ["--preset", $0] } + ["--only-presets"]
        let signed = try await Self.sign([Self.source, "--options", "thumb:sharp"] + flags)
        let options = try Self.served(signed, presets: presets).options
        #expect(options.width == 120 && options.sharpenSigma == 1.5)

        // Such a server takes presets only: an option is refused before anything is signed.
        let option = try await Self.sign([Self.source, "--options", "rs:fit:10:10"] + flags)
        #expect(option.status != 0 && option.output.isEmpty, "\(option.output)")
        // And it needs presets to name.
        let none = try await Self.sign([Self.source, "--options", "thumb", "--only-presets"])
        #expect(none.status != 0 && none.errorOutput.contains("--only-presets"), "\(none.errorOutput)")
    }
}
#endif
