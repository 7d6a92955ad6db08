#if os(Linux)
import Imago

extension ProcessingOptionsParser {
    /// A decimal integer of at most 9 digits within `range`.
    static func integer(_ text: Substring, in range: ClosedRange<Int>, for name: Substring) throws(ProcessingPathError) -> Int {
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(text),
            range.contains(value)
        else {
            throw .badOptions("\(quoted(name)) takes a whole number in \(range.lowerBound)...\(range.upperBound), got \(quoted(text))")
        }
        return value
    }

    /// A decimal integer with an optional sign and at most `digits` digits (18 fit in `Int`, so no
    /// text can overflow it).
    static func signedInteger(_ text: Substring, digits: Int = 18, for name: Substring) throws(ProcessingPathError) -> Int {
        var body = text
        if body.first == "-" || body.first == "+" { body = body.dropFirst() }
        guard !body.isEmpty, body.utf8.count <= min(digits, 18), body.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let value = Int(text)
        else {
            throw .badOptions("\(quoted(name)) takes a whole number (at most \(min(digits, 18)) digits), got \(quoted(text))")
        }
        return value
    }

    /// A decimal number (`12`, `-0.5`, `+3.`, `.25`: an optional sign, digits with at most one dot,
    /// at most 16 characters; no exponent) within `range`, so no later arithmetic on it can trap.
    static func decimal(_ text: Substring, in range: ClosedRange<Double>, for name: Substring) throws(ProcessingPathError) -> Double {
        var body = text
        if body.first == "-" || body.first == "+" { body = body.dropFirst() }
        let valid =
            !body.isEmpty && text.utf8.count <= 16 && body.utf8.filter { $0 == 46 }.count <= 1
            && body.utf8.contains { $0 >= 48 && $0 <= 57 } && body.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == 46 }
        guard valid, let value = Double(text.first == "+" ? text.dropFirst() : text), value.isFinite, range.contains(value)
        else {
            throw .badOptions(
                "\(quoted(name)) takes a number in \(shown(range.lowerBound))...\(shown(range.upperBound)), got \(quoted(text))")
        }
        return value == 0 ? 0 : value  // no -0 in canonical texts
    }

    /// `12` rather than `12.0` in messages.
    private static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
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

    /// Untrusted text for a message: at most 40 characters, quoted, control characters escaped.
    static func quoted(_ text: Substring) -> String {
        let shown = text.count > 40 ? text.prefix(40) + "…" : text
        let escaped = shown.unicodeScalars.map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
        return "\"\(escaped)\""
    }
}
#endif
