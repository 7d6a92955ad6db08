#if os(Linux)
import Foundation

/// Base64 with the URL alphabet (`-` and `_`), padding optional: how sources and signatures
/// travel in paths.
public enum Base64URL {
    /// `data` encoded without padding.
    public static func encode(_ data: some Sequence<UInt8>) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of `text`, or `nil` when it holds a character outside the alphabet or has an
    /// impossible length.
    public static func decode(_ text: Substring) -> Data? {
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        var trimmed = text
        while trimmed.last == "=" { trimmed = trimmed.dropLast() }
        for scalar in trimmed.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9": standard.unicodeScalars.append(scalar)
            case "-", "+": standard.append("+")
            case "_", "/": standard.append("/")
            default: return nil
            }
        }
        switch standard.utf8.count % 4 {
        case 0: break
        case 2: standard += "=="
        case 3: standard += "="
        default: return nil
        }
        return Data(base64Encoded: standard)
    }
}
#endif
