#if os(Linux)
import Foundation
import Imago

extension ProcessingOptionsParser {
    /// imgproxy's `trim` (`t`), `watermark` (`wm`) and Pro's `watermark_url` (`wmu`).
    mutating func applyOverlay(_ name: Substring, _ arguments: [Substring]) throws(ProcessingPathError) {
        switch name {
        case "t", "trim":
            options.trim = try Self.trim(arguments, for: name)
        case "wm", "watermark":
            options.watermark = try Self.watermark(arguments, for: name)
        default:
            try expect(arguments, atMost: 1, for: name)
            // Any absolute URL, as `fiu`: the source policy decides whether it is fetched.
            options.watermarkURL = try Self.fallbackImageURL(arguments[0], for: name)
        }
    }

    /// `t:THRESHOLD[:COLOR[:EQUAL_HOR[:EQUAL_VER]]]`: an empty threshold turns trimming off (as
    /// imgproxy reads it); an empty colour is the top-left pixel's; the booleans default to false.
    static func trim(_ arguments: [Substring], for name: Substring) throws(ProcessingPathError) -> ImageProcessors.Trim? {
        guard arguments.count <= 4 else { throw .badOptions("\(quoted(name)) takes THRESHOLD:COLOR:EQUAL_HOR:EQUAL_VER") }
        // Every argument is checked, even when the empty threshold makes the option a no-op.
        let threshold = arguments[0].isEmpty ? nil : try decimal(arguments[0], in: 0...100_000, for: name)
        let color = arguments.count > 1 && !arguments[1].isEmpty ? try hexColor(arguments[1], for: name) : nil
        let equalHorizontal = arguments.count > 2 && !arguments[2].isEmpty ? try boolean(arguments[2], for: name) : false
        let equalVertical = arguments.count > 3 && !arguments[3].isEmpty ? try boolean(arguments[3], for: name) : false
        guard let threshold else { return nil }
        return ImageProcessors.Trim(
            threshold: threshold, color: color, equalHorizontal: equalHorizontal, equalVertical: equalVertical)
    }

    /// `wm:OPACITY[:POSITION[:X[:Y[:SCALE]]]]`: opacity 0...1 (required), a position (`ce`, `no`,
    /// `so`, `ea`, `we`, `noea`, `nowe`, `soea`, `sowe`, `re`), offsets, a scale (0 or empty: the
    /// watermark's own size, as imgproxy documents it; imgproxy 4's parser refuses an explicit 0,
    /// which URLs written for imgproxy 3 carry, so it is taken here). imgproxy takes up to seven
    /// arguments (Pro's text options); more than five is refused here.
    static func watermark(_ arguments: [Substring], for name: Substring) throws(ProcessingPathError) -> ProcessingOptions.Watermark? {
        guard arguments.count <= 5 else { throw .badOptions("\(quoted(name)) takes OPACITY:POSITION:X_OFFSET:Y_OFFSET:SCALE") }
        var watermark = ProcessingOptions.Watermark(opacity: try decimal(arguments[0], in: 0...1, for: name))
        if arguments.count > 1, !arguments[1].isEmpty {
            guard let position = ProcessingOptions.Watermark.Position(rawValue: String(arguments[1])) else {
                let known = ProcessingOptions.Watermark.Position.allCases.map(\.rawValue).joined(separator: ", ")
                throw .badOptions("unknown watermark position \(quoted(arguments[1])) in \(quoted(name)); use \(known)")
            }
            watermark.position = position
        }
        if arguments.count > 2, !arguments[2].isEmpty { watermark.x = try decimal(arguments[2], in: -maximumOffset...maximumOffset, for: name) }
        if arguments.count > 3, !arguments[3].isEmpty { watermark.y = try decimal(arguments[3], in: -maximumOffset...maximumOffset, for: name) }
        if arguments.count > 4, !arguments[4].isEmpty { watermark.scale = try decimal(arguments[4], in: 0...100, for: name) }
        return watermark
    }

    /// `RRGGBB` or `RGB`, hexadecimal.
    static func hexColor(_ text: Substring, for name: Substring) throws(ProcessingPathError) -> RGBA {
        var digits = Array(text.utf8).compactMap(\.hexDigitValue)
        guard digits.count == text.utf8.count, digits.count == 6 || digits.count == 3 else {
            throw .badOptions("\(quoted(name)) takes a hex colour RRGGBB or RGB, got \(quoted(text))")
        }
        if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
        return RGBA(digits[0] << 4 | digits[1], digits[2] << 4 | digits[3], digits[4] << 4 | digits[5])
    }
}
#endif
