/// An IPv4 or IPv6 address as bytes, with what kind of network it belongs to: the source
/// policy refuses everything but the public internet unless told otherwise.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(UInt8, UInt8, UInt8, UInt8)
    /// 16 bytes, network order.
    case v6([UInt8])

    /// Parses a dotted-quad or a colon-hex literal (brackets allowed); `nil` for anything else.
    public init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let v4 = Self.parseV4(text) {
            self = v4
        } else if let bytes = Self.parseV6(text) {
            self = .v6(bytes)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .v4(let a, let b, let c, let d): return "\(a).\(b).\(c).\(d)"
        case .v6(let bytes):
            guard bytes.count == 16 else { return "invalid-ipv6" }
            var groups: [String] = []
            for index in stride(from: 0, to: 16, by: 2) {
                groups.append(String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16))
            }
            return groups.joined(separator: ":")
        }
    }

    /// The literal to put in a URL's host: `[…]` around IPv6.
    public var urlHost: String {
        if case .v6 = self { return "[\(description)]" }
        return description
    }

    /// Why the address is not on the public internet (loopback, private…), or `nil` when it is.
    public var nonPublicKind: String? {
        switch self {
        case .v4(let a, let b, let c, let d): return Self.kind(v4: (a, b, c, d))
        case .v6(let bytes):
            guard bytes.count == 16 else { return "malformed" }
            if bytes.allSatisfy({ $0 == 0 }) { return "unspecified" }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return "loopback" }
            // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d)
            // carry an IPv4 address: judge that.
            let zeroPrefix = bytes[0..<10].allSatisfy { $0 == 0 }
            let mapped = zeroPrefix && bytes[10] == 0xFF && bytes[11] == 0xFF
            let compatible = zeroPrefix && bytes[10] == 0 && bytes[11] == 0
            let nat64: [UInt8] = [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]
            if mapped || compatible || Array(bytes[0..<12]) == nat64 {
                return Self.kind(v4: (bytes[12], bytes[13], bytes[14], bytes[15])).map { "\($0) (embedded IPv4)" }
            }
            if bytes[0] == 0x20 && bytes[1] == 0x02 {  // 6to4: 2002:a.b.c.d::
                return Self.kind(v4: (bytes[2], bytes[3], bytes[4], bytes[5])).map { "\($0) (6to4)" }
            }
            if bytes[0] & 0xFE == 0xFC { return "unique local (private; fd00:ec2::254 is cloud metadata)" }
            if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return "link-local" }
            if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0xC0 { return "site-local" }
            if bytes[0] == 0xFF { return "multicast" }
            if bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0D && bytes[3] == 0xB8 { return "documentation" }
            if bytes[0] == 0x01 && bytes[1..<8].allSatisfy({ $0 == 0 }) { return "discard-only" }
            return nil
        }
    }

    private static func kind(v4 address: (UInt8, UInt8, UInt8, UInt8)) -> String? {
        let (a, b, c, _) = address
        switch (a, b) {
        case (0, _): return "unspecified (0.0.0.0/8)"
        case (10, _): return "private (10.0.0.0/8)"
        case (100, 64...127): return "carrier-grade NAT (100.64.0.0/10)"
        case (127, _): return "loopback"
        case (169, 254): return "link-local (169.254.0.0/16; 169.254.169.254 is cloud metadata)"
        case (172, 16...31): return "private (172.16.0.0/12)"
        case (192, 168): return "private (192.168.0.0/16)"
        case (192, 0) where c == 0 || c == 2: return "reserved (192.0.0.0/24, 192.0.2.0/24)"
        case (198, 18...19): return "benchmarking (198.18.0.0/15)"
        case (198, 51) where c == 100: return "documentation"
        case (203, 0) where c == 113: return "documentation"
        case (224...239, _): return "multicast"
        case (240...255, _): return "reserved or broadcast"
        default: return nil
        }
    }

    private static func parseV4(_ text: Substring) -> IPAddress? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.count <= 3, part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return .v4(bytes[0], bytes[1], bytes[2], bytes[3])
    }

    private static func parseV6(_ text: Substring) -> [UInt8]? {
        var text = text
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }  // zone index
        guard text.contains(":"), text.utf8.count <= 45 else { return nil }
        let halves = text.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), case .v4(let a, let b, let c, let d)? = parseV4(piece) {
                    bytes += [a, b, c, d]
                    continue
                }
                guard !piece.isEmpty, piece.utf8.count <= 4, let value = UInt16(piece, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return bytes
        }
        if halves.count == 2 {
            guard let head = groups(halves[0]), let tail = groups(halves[1]), head.count + tail.count < 16 else { return nil }
            return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
        }
        guard let all = groups(halves[0]), all.count == 16 else { return nil }
        return all
    }
}
