#if os(Linux)
import Foundation
import Imago
import Testing

@testable import ImagoServer

/// imgproxy's options beyond the resize: values, defaults and bounds as imgproxy documents them,
/// every error a `bad_options` naming the option.
@Suite struct ProcessingOptionsTests {
    static func options(_ text: String, presets: ProcessingPresets = .none) throws -> ProcessingOptions {
        try ProcessingPath.parse("/_/\(text)\(ProcessingPathTests.plain)", presets: presets).options
    }

    /// The code and message of what `text` throws.
    /// Checks that the options `text` are refused as `bad_options` by a message that names the
    /// option (the part before the first colon).
    static func expectRefusalNamingTheOption(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let error = try #require(failure(text), "\(text) parsed", sourceLocation: sourceLocation)
        #expect(error.code == "bad_options", sourceLocation: sourceLocation)
        let name = String(text.prefix { $0 != ":" })
        #expect(error.message.contains(name), "\(error.message)", sourceLocation: sourceLocation)
    }

    static func failure(_ text: String, presets: ProcessingPresets = .none) -> ProcessingPathError? {
        do {
            _ = try options(text, presets: presets)
            return nil
        } catch let error as ProcessingPathError {
            return error
        } catch {
            return nil
        }
    }

    @Test func defaultsAreImgproxys() throws {
        let defaults = try Self.options("w:10")
        #expect(defaults.gravity == .center && defaults.gravity.x == 0 && defaults.gravity.y == 0)
        #expect(defaults.crop == nil && defaults.padding == nil && defaults.extend == nil)
        #expect(defaults.rotation == 0 && defaults.blurSigma == nil && defaults.sharpenSigma == nil)
        #expect(defaults.stripMetadata == nil && defaults.expires == nil && defaults.cacheBuster == nil)
        #expect(defaults.maximumSourcePixels == nil && defaults.maximumSourceBytes == nil && defaults.presets.isEmpty)
    }

    @Test(arguments: [
        ("g:no", ProcessingOptions.Gravity(.north)),
        ("gravity:soea:10:0.25", ProcessingOptions.Gravity(.southEast, x: 10, y: 0.25)),
        ("g:we::5", ProcessingOptions.Gravity(.west, x: 0, y: 5)),
        ("g:ce:-20:+3.5", ProcessingOptions.Gravity(.center, x: -20, y: 3.5)),
        ("g:fp:0.25:1", ProcessingOptions.Gravity(.focusPoint, x: 0.25, y: 1)),
        ("g:sm", ProcessingOptions.Gravity(.smart)),
        ("g:nowe/g:ce", ProcessingOptions.Gravity.center),
    ])
    func readsGravity(text: String, gravity: ProcessingOptions.Gravity) throws {
        #expect(try Self.options(text).gravity == gravity)
    }

    @Test(arguments: [
        ("c:300:200", ProcessingOptions.Crop(width: 300, height: 200)),
        ("crop:0.5", ProcessingOptions.Crop(width: 0.5, height: 0)),
        ("c:100:0.5:sowe:4:5", ProcessingOptions.Crop(width: 100, height: 0.5, gravity: .init(.southWest, x: 4, y: 5))),
        ("c:100:100:sm", ProcessingOptions.Crop(width: 100, height: 100, gravity: .init(.smart))),
    ])
    func readsCrop(text: String, crop: ProcessingOptions.Crop) throws {
        #expect(try Self.options(text).crop == crop)
        #expect(try Self.options("c:0:0").crop == nil, "0 is the whole side: no crop")
    }

    /// CSS shorthand: one side sets all four, two set vertical and horizontal, three set top,
    /// horizontal and bottom; empty sides are copied as CSS copies them.
    @Test(arguments: [
        ("pd:10", 10, 10, 10, 10), ("pd:10:20", 10, 20, 10, 20), ("pd:1:2:3", 1, 2, 3, 2),
        ("padding:1:2:3:4", 1, 2, 3, 4), ("pd::5", 0, 5, 0, 5), ("pd:7:::1", 7, 7, 7, 1),
    ])
    func readsPadding(text: String, top: Int, right: Int, bottom: Int, left: Int) throws {
        let options = try Self.options(text)
        #expect(options.padding == ProcessingOptions.Padding(top: top, right: right, bottom: bottom, left: left))
        #expect(try Self.options("pd:0").padding == nil)
        #expect(try Self.options("pd:10/dpr:2").pixelPadding == ProcessingOptions.Padding(top: 20, right: 20, bottom: 20, left: 20))
    }

    @Test func readsExtendAndTheSizeOptionsThatCarryIt() throws {
        #expect(try Self.options("ex:1").extend == ProcessingOptions.Extend())
        #expect(try Self.options("extend:t:no:0:4").extend == ProcessingOptions.Extend(gravity: .init(.north, y: 4)))
        #expect(try Self.options("ex:0").extend == nil)
        let resize = try Self.options("rs:fill:300:200:0:1:ea")
        #expect(resize.extend == ProcessingOptions.Extend(gravity: .init(.east)) && resize.width == 300)
        #expect(try Self.options("s:10:20:1:1").extend == ProcessingOptions.Extend())
    }

    @Test(arguments: [("rot:90", 90), ("rotate:-90", 270), ("rot:540", 180), ("rot:0", 0), ("rot:+360", 0)])
    func readsRotation(text: String, degrees: Int) throws {
        #expect(try Self.options(text).rotation == degrees)
    }

    @Test func readsFiltersMetadataExpiryCacheBusterAndLimits() throws {
        let options = try Self.options("bl:2.5/sh:0.7/sm:0/exp:4102444800/cb:v2/msr:12.5/msfs:1000000")
        #expect(options.blurSigma == 2.5 && options.sharpenSigma == 0.7)
        #expect(options.stripMetadata == false && options.expires == 4_102_444_800 && options.cacheBuster == "v2")
        #expect(options.maximumSourcePixels == 12_500_000 && options.maximumSourceBytes == 1_000_000)
        // 0 turns each off, as imgproxy reads it.
        let off = try Self.options("bl:0/sh:0/exp:0/cb:/msr:0/msfs:0")
        #expect(off.blurSigma == nil && off.sharpenSigma == nil && off.expires == nil && off.cacheBuster == nil)
        #expect(off.maximumSourcePixels == nil && off.maximumSourceBytes == nil)
        #expect(try Self.options("bg:ff0000/bg:").background == nil, "an empty background turns it off")
        #expect(try Self.options("f:avif").format == .avif)
        #expect(try ProcessingPath.parse("/_/w:10/aHR0cDovL2EuYi9j.avif").options.format == .avif)
    }

    /// Every output-changing option is in the canonical text; equal options, equal text; a cache
    /// buster cannot pass for other options.
    @Test func canonicalTextNamesEveryOptionThatChangesTheOutput() throws {
        let base = try Self.options("w:100").canonical
        for text in [
            "g:no", "c:10:10", "pd:1", "ex:1", "rot:90", "bl:1", "sh:1", "cb:x", "msr:1", "msfs:10", "g:fp:0.5:0.5", "g:sm",
            "c:10:10:no",
        ] {
            #expect(try Self.options("w:100/\(text)").canonical != base, "\(text)")
        }
        for text in ["sm:1", "exp:4102444800", "g:ce", "g:ce:0:0", "rot:360", "pd:0", "ex:0"] {
            #expect(try Self.options("w:100/\(text)").canonical == base, "\(text)")
        }
        #expect(try Self.options("pd:5").canonical == Self.options("pd:5:5:5:5").canonical)
        let tricky = try Self.options("cb:a/q:50").canonical
        #expect(try Self.options("cb:a/q:50").canonical == tricky)
        #expect(try Self.options("q:50/cb:a").canonical == tricky)
        #expect(try Self.options("cb:a%2Fq%3A50").canonical != tricky)
    }

    @Test(arguments: [
        ("g:up", "g"), ("gravity:fp:0.5", "gravity"), ("g:fp:1.5:0", "g"), ("g:fp:-0.1:0", "g"), ("g:sm:1", "g"),
        ("g:no:1:2:3", "g"), ("g:no:x", "g"), ("g:no:1e3", "g"), ("g:no:100001", "g"), ("g:ce:nan", "g"),
        ("c:-1", "c"), ("c:100001", "c"), ("crop:a:1", "crop"), ("c:10:10:up", "c"), ("c:1:1:1:1:1:1", "c"),
        ("pd:-1", "pd"), ("pd:1:2:3:4:5", "pd"), ("pd:100001", "pd"), ("padding:x", "padding"),
        ("ex:2", "ex"), ("ex:1:sm", "ex"), ("extend:1:up", "extend"), ("rs:fit:1:1:0:1:zz", "rs"),
        ("rot:45", "rot"), ("rotate:1e9", "rotate"), ("rot:9999999999", "rot"), ("rot:", "rot"),
        ("bl:-1", "bl"), ("bl:100.5", "bl"), ("blur:x", "blur"), ("sh:inf", "sh"), ("sharpen:1:2", "sharpen"),
        ("sm:2", "sm"), ("strip_metadata:yes", "strip_metadata"),
        ("exp:soon", "exp"), ("expires:9999999999999999999", "expires"), ("exp:1:2", "exp"),
        ("cb:a:b", "cb"), ("msr:-1", "msr"), ("msr:100001", "msr"), ("msfs:-5", "msfs"), ("msfs:1e6", "msfs"),
        ("max_src_file_size:9999999999999", "max_src_file_size"),
        ("pr:missing", "pr"), ("preset:a:missing", "preset"), ("wm:1.5", "wm"), ("t:x", "t"),
    ])
    func refusesBadArgumentsNamingTheOption(text: String, name: String) throws {
        let error = try #require(Self.failure(text, presets: try ProcessingPresets(definitions: ["a=q:50"])), "\(text) parsed")
        #expect(error.code == "bad_options", "\(text): \(error)")
        #expect(error.message.contains("\"\(name)\"") || error.message.contains(name), "\(text): \(error.message)")
    }
}
#endif
