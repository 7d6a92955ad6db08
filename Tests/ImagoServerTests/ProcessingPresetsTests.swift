#if os(Linux)
import Foundation
import Imago
import Testing

@testable import ImagoServer

/// imgproxy's presets: `NAME=OPTIONS` at start, `pr:NAME` in paths, `default` first, and the
/// only-presets mode.
@Suite struct ProcessingPresetsTests {
    static let source = ProcessingPathTests.plain

    @Test func appliesPresetsInPlaceAndLaterOptionsWin() throws {
        let presets = try ProcessingPresets(definitions: ["thumb=rs:fill:300:200/q:70", "sharp=sh:0.5", "big=w:900"])
        let path = try ProcessingPath.parse("/_/pr:thumb:sharp/q:90\(Self.source)", presets: presets)
        #expect(path.options.resizingType == .fill && path.options.width == 300 && path.options.height == 200)
        #expect(path.options.quality == 0.9, "an option after the preset overrides it")
        #expect(path.options.sharpenSigma == 0.5)
        #expect(path.options.presets == ["thumb", "sharp"])
        let before = try ProcessingPath.parse("/_/q:90/preset:thumb\(Self.source)", presets: presets)
        #expect(before.options.quality == 0.7, "a preset after an option overrides it")
        // The same options written out or through a preset make the same response.
        let written = try ProcessingPath.parse("/_/rs:fill:300:200/q:70/sh:0.5/q:90\(Self.source)")
        #expect(written.options.canonical == path.options.canonical)
    }

    @Test func theDefaultPresetAppliesFirst() throws {
        let presets = try ProcessingPresets(definitions: ["default=q:60/f:webp", "x=q:40"])
        #expect(try ProcessingPath.parse("/_/w:10\(Self.source)", presets: presets).options.quality == 0.6)
        #expect(try ProcessingPath.parse("/_/q:80\(Self.source)", presets: presets).options.quality == 0.8)
        let named = try ProcessingPath.parse("/_/pr:x\(Self.source)", presets: presets).options
        #expect(named.quality == 0.4 && named.format == .webp && named.presets == ["default", "x"])
    }

    @Test func presetsMayNamePresetsButNeverLoop() throws {
        let presets = try ProcessingPresets(definitions: ["a=q:10/pr:b", "b=w:20/pr:a", "c=pr:c/h:5"])
        let options = try ProcessingPath.parse("/_/pr:a\(Self.source)", presets: presets).options
        #expect(options.quality == 0.1 && options.width == 20)
        #expect(try ProcessingPath.parse("/_/pr:c\(Self.source)", presets: presets).options.height == 5)
    }

    /// imgproxy's only-presets mode: the first segment names presets, separated by `:`.
    @Test func onlyPresetsPathsNamePresets() throws {
        let presets = try ProcessingPresets(definitions: ["small=w:100", "webp=f:webp"], onlyPresets: true)
        let path = try ProcessingPath.parse("/_/small:webp\(Self.source)", presets: presets)
        #expect(path.options.width == 100 && path.options.format == .webp)
        #expect(path.source.absoluteString == ProcessingPathTests.source)
        let encoded = Base64URL.encode(Array(ProcessingPathTests.source.utf8))
        #expect(try ProcessingPath.parse("/_/small/\(encoded).png", presets: presets).options.format == .png)
        for bad in ["/_/w:100\(Self.source)", "/_/nothing\(Self.source)", "/_/small", "/_/\(Self.source)"] {
            #expect(throws: ProcessingPathError.self, "\(bad)") { try ProcessingPath.parse(bad, presets: presets) }
        }
        #expect(throws: ProcessingPathError.self) { try ProcessingPath.parse("/_/w:100\(Self.source)", presets: presets) }
    }

    @Test(arguments: [
        "nameonly", "=q:50", "x=", "x=q:50=q:60", "x=w:wide", "x=plain", "x=pr:y", "a:b=q:5", "x=q:101",
    ])
    func refusesBadDefinitionsNamingThePreset(definition: String) {
        do {
            _ = try ProcessingPresets(definitions: [definition])
            Issue.record("\(definition) was accepted")
        } catch {
            #expect(error.code == "bad_options")
            #expect(error.message.contains("preset"), "\(error.message)")
        }
    }

    @Test func boundsTheWorkOfPresetsThatMultiply() throws {
        // Each level applies the next twice: 2^12 segments without the bound.
        var definitions = (0..<12).map { "p\($0)=pr:p\($0 + 1)/pr:p\($0 + 1)" }
        definitions.append("p12=q:50")
        do {
            _ = try ProcessingPresets(definitions: definitions)
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("more than \(ProcessingOptionsParser.maximumPresetSegments)"), "\(error.message)")
        }
    }
}
#endif
