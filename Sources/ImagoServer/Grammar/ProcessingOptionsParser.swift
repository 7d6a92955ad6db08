import Imago

/// Reads option segments (`rs:fill:300:200`, `q:80`…) into ``ProcessingOptions``.
///
/// | option | arguments | |
/// |---|---|---|
/// | `rs`, `resize` | `type:width:height:enlarge` | any argument may be empty (kept) |
/// | `rt`, `resizing_type` | `fit`, `fill`, `force` | |
/// | `s`, `size` | `width:height:enlarge` | |
/// | `w`, `width`; `h`, `height` | 0...100000 | 0: from the other side |
/// | `el`, `enlarge` | `1`, `0`, `t`, `f`, `true`, `false` | |
/// | `dpr` | a number in (0, 8] | |
/// | `q`, `quality` | 0...100 | 0: the server's default |
/// | `f`, `format`, `ext` | `jpeg`, `jpg`, `png`, `webp`, `auto` | |
/// | `bg`, `background` | `RRGGBB`, `RGB` or `R:G:B` | |
/// | `scp`, `strip_color_profile` | `1`, `0`, `t`, `f`, `true`, `false` | 0: keep the source's profile |
struct ProcessingOptionsParser {
    /// The largest width or height a URL may name (before the ratio).
    static let maximumLength = 100_000

    var options = ProcessingOptions()

    /// Applies one `name:arg…` segment.
    mutating func apply(_ segment: Substring) throws(ProcessingPathError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard let name = parts.first, parts.count >= 2 else {
            throw .badOptions("the option \(Self.quoted(segment)) has no arguments; write name:argument")
        }
        let arguments = Array(parts.dropFirst())
        guard arguments.count <= 5 else { throw .badOptions("the option \(Self.quoted(name)) has too many arguments") }
        switch name {
        case "rs", "resize":
            try expect(arguments, atMost: 4, for: name)
            if !arguments[0].isEmpty { options.resizingType = try Self.resizingType(arguments[0]) }
            try applySize(Array(arguments.dropFirst()), for: name)
        case "rt", "resizing_type":
            try expect(arguments, atMost: 1, for: name)
            options.resizingType = try Self.resizingType(arguments[0])
        case "s", "size":
            try expect(arguments, atMost: 3, for: name)
            try applySize(arguments, for: name)
        case "w", "width":
            try expect(arguments, atMost: 1, for: name)
            options.width = try Self.length(arguments[0], for: name)
        case "h", "height":
            try expect(arguments, atMost: 1, for: name)
            options.height = try Self.length(arguments[0], for: name)
        case "el", "enlarge":
            try expect(arguments, atMost: 1, for: name)
            options.enlarge = try Self.boolean(arguments[0], for: name)
        case "dpr":
            try expect(arguments, atMost: 1, for: name)
            options.devicePixelRatio = try Self.ratio(arguments[0])
        case "q", "quality":
            try expect(arguments, atMost: 1, for: name)
            let quality = try Self.integer(arguments[0], in: 0...100, for: name)
            options.quality = quality == 0 ? nil : Double(quality) / 100
        case "f", "format", "ext":
            try expect(arguments, atMost: 1, for: name)
            guard let format = Self.format(named: arguments[0]) else {
                throw .badOptions("unknown format \(Self.quoted(arguments[0])); use jpeg, png, webp or auto")
            }
            options.format = format
        case "bg", "background":
            options.background = try Self.color(arguments)
        case "scp", "strip_color_profile":
            try expect(arguments, atMost: 1, for: name)
            options.stripColorProfile = try Self.boolean(arguments[0], for: name)
        default:
            throw .badOptions(
                "unknown option \(Self.quoted(name)); known: rs, rt, s, w, h, el, dpr, q, f, bg, scp (README, \"imago serve\")")
        }
    }

    private mutating func applySize(_ arguments: [Substring], for name: Substring) throws(ProcessingPathError) {
        if arguments.count > 0, !arguments[0].isEmpty { options.width = try Self.length(arguments[0], for: name) }
        if arguments.count > 1, !arguments[1].isEmpty { options.height = try Self.length(arguments[1], for: name) }
        if arguments.count > 2, !arguments[2].isEmpty { options.enlarge = try Self.boolean(arguments[2], for: name) }
    }

    private func expect(_ arguments: [Substring], atMost count: Int, for name: Substring) throws(ProcessingPathError) {
        guard arguments.count <= count else {
            throw .badOptions("the option \(Self.quoted(name)) takes at most \(count) argument\(count == 1 ? "" : "s"), got \(arguments.count)")
        }
    }

    static func resizingType(_ text: Substring) throws(ProcessingPathError) -> ProcessingOptions.ResizingType {
        guard let type = ProcessingOptions.ResizingType(rawValue: String(text)) else {
            throw .badOptions("unknown resizing type \(quoted(text)); use fit, fill or force")
        }
        return type
    }

    static func length(_ text: Substring, for name: Substring) throws(ProcessingPathError) -> Int {
        try integer(text, in: 0...maximumLength, for: name)
    }

    /// A decimal integer of at most 9 digits within `range`.
    static func integer(_ text: Substring, in range: ClosedRange<Int>, for name: Substring) throws(ProcessingPathError) -> Int {
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(text),
            range.contains(value)
        else {
            throw .badOptions("\(quoted(name)) takes a whole number in \(range.lowerBound)...\(range.upperBound), got \(quoted(text))")
        }
        return value
    }

    static func boolean(_ text: Substring, for name: Substring) throws(ProcessingPathError) -> Bool {
        switch text {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw .badOptions("\(quoted(name)) takes 1 or 0 (true or false), got \(quoted(text))")
        }
    }

    /// A device-pixel ratio: digits with at most one dot, in (0, 8].
    static func ratio(_ text: Substring) throws(ProcessingPathError) -> Double {
        let valid =
            !text.isEmpty && text.utf8.count <= 8 && text.utf8.filter { $0 == 46 }.count <= 1
            && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == 46 }
        guard valid, let value = Double(text), value > 0, value <= 8 else {
            throw .badOptions("dpr takes a number greater than 0 and at most 8, got \(quoted(text))")
        }
        return value
    }

    static func format(named text: Substring) -> ProcessingOptions.OutputFormat? {
        switch text.lowercased() {
        case "jpg", "jpeg": .jpeg
        case "png": .png
        case "webp": .webp
        case "auto": .auto
        default: nil
        }
    }

    /// `RRGGBB`, `RGB` (hex) or `R:G:B` (0...255 each).
    static func color(_ arguments: [Substring]) throws(ProcessingPathError) -> RGBA {
        if arguments.count == 3 {
            var channels: [UInt8] = []
            for argument in arguments {
                channels.append(UInt8(try integer(argument, in: 0...255, for: "bg")))
            }
            return RGBA(channels[0], channels[1], channels[2])
        }
        guard arguments.count == 1 else { throw .badOptions("bg takes RRGGBB, RGB or R:G:B") }
        var digits = Array(arguments[0].utf8).compactMap(\.hexDigitValue)
        guard digits.count == arguments[0].utf8.count, digits.count == 6 || digits.count == 3 else {
            throw .badOptions("bg takes a hex colour RRGGBB or RGB, or R:G:B, got \(quoted(arguments[0]))")
        }
        if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
        return RGBA(digits[0] << 4 | digits[1], digits[2] << 4 | digits[3], digits[4] << 4 | digits[5])
    }

    /// `rrggbb`.
    static func hex(_ color: RGBA) -> String {
        let digits = Array("0123456789abcdef")
        return String([color.r, color.g, color.b].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// Untrusted text for a message: at most 40 characters, quoted, control characters escaped.
    static func quoted(_ text: Substring) -> String {
        let shown = text.count > 40 ? text.prefix(40) + "…" : text
        let escaped = shown.unicodeScalars.map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
        return "\"\(escaped)\""
    }
}
