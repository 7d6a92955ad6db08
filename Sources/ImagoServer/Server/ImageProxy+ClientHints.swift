#if os(Linux)
extension ImageProxy {
    /// The request headers read as client hints (``ImageProxyConfiguration/readsClientHints``),
    /// each hint's standard name before its legacy one, as `Vary` names them.
    static let clientHintHeaders = ["Sec-CH-DPR", "DPR", "Sec-CH-Width", "Width"]

    /// The options client hints set before the path's own, as imgproxy reads them: the first
    /// valid ratio of `Sec-CH-DPR` and `DPR` (above 0, at most 8; an invalid one is passed over),
    /// the first valid width of `Sec-CH-Width` and `Width` (a whole number of device pixels
    /// above 0), which becomes the width in CSS pixels, rounded (0, no width, below a half).
    /// `header` looks a request header up by its name.
    static func hintedDefaults(_ header: (String) -> String?) -> ProcessingOptions {
        var options = ProcessingOptions()
        for name in ["Sec-CH-DPR", "DPR"] {
            if let text = header(name), let ratio = try? ProcessingOptionsParser.ratio(Substring(text)) {
                options.devicePixelRatio = ratio
                break
            }
        }
        for name in ["Sec-CH-Width", "Width"] {
            // Digits only, at most 7 (the hint is a layout width; the output size is checked later).
            if let text = header(name), (1...7).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let width = Int(text), width > 0
            {
                options.width = Int((Double(width) / options.devicePixelRatio).rounded())
                break
            }
        }
        return options
    }
}
#endif
