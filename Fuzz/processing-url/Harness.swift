import Foundation

@testable import Imago

/// libFuzzer entry: a request path through the proxy's URL grammar (`ProcessingPath.parse`,
/// options, base64url and percent-decoded sources, the canonical text) and the address-literal
/// parser of the source policy (Fuzz/run.sh processing-url SECONDS). The grammar's files are
/// compiled into the harness (Fuzz/processing-url/sources), not linked from ImagoServer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    processingURL(FuzzTarget.data(start, count))
    return 0
}

/// Presets that name each other (a loop included), for `pr:` paths and the only-presets mode.
let fuzzPresets = (try? ProcessingPresets(definitions: [
    "default=q:70", "thumb=rs:fill:300:200:1:1:sm/g:fp:0.5:0.5", "a=pr:b/bl:2/c:0.5:10:no", "b=pr:a/pd:1:2/rot:-90",
])) ?? .none

/// What the replay test does with each file, too (FuzzCorpus.replay, "processing-url").
func processingURL(_ data: Data) {
    let text = String(decoding: data, as: UTF8.self)
    var onlyPresets = fuzzPresets
    onlyPresets.onlyPresets = true
    for presets in [ProcessingPresets.none, fuzzPresets, onlyPresets] {
        if let path = try? ProcessingPath.parse(text, presets: presets) {
            let options = path.options
            _ = options.canonical
            _ = options.pixelWidth * options.pixelHeight
            _ = options.pixelPadding.horizontal + options.pixelPadding.vertical
            // The geometry of every request size arithmetic (sources as decoders allow them).
            for (width, height) in [(1, 1), (4032, 3024), (65_500, 3), (7, 65_500)] {
                let geometry = ProxyGeometry(source: PixelSize(width: width, height: height), options: options, maximumDimension: 16_384)
                _ = geometry.requiredScale + Double(geometry.canvasSize.width * geometry.canvasSize.height)
            }
        }
    }
    // imgproxy's URL settings: another separator, allowed options, file names, a base URL and
    // replacements whose stars and `$N` references the source is run through.
    var rules = ProcessingPath.Rules()
    rules.argumentsSeparator = ","
    rules.allowedOptions = ["rs", "w", "pr"]
    rules.base64URLIncludesFilename = true
    rules.baseURL = "https://cdn.example.com/"
    rules.urlReplacements = [.init(pattern: "s3://*/*", replacement: "https://$1.example/${2}$3$"), .init(pattern: "*", replacement: "$1")]
    _ = try? ProcessingPath.parse(text, presets: fuzzPresets, rules: rules)
    if let address = IPAddress(text) {
        _ = address.nonPublicKind
        _ = IPAddress(address.description)
    }
}
