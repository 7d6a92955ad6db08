#if os(Linux)
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

    /// Why the address is not on the public internet, or `nil` when it is: the name and prefix of
    /// its block in IANA's IPv4 and IPv6 special-purpose address registries (RFC 6890 and its
    /// updates), such as `private-use (10.0.0.0/8)`. The proxy refuses to connect to such an
    /// address unless the ``SourcePolicy`` allows it.
    ///
    /// The rules, in this order:
    /// - A block the registries mark globally reachable, inside a larger block that is not, is
    ///   public: the anycast addresses in 192.0.0.0/24 and 2001:1::/48, AMT, AS112, ORCHIDv2 and
    ///   DETs (`publicExceptionTable`).
    /// - An IPv6 address that carries an IPv4 destination is judged by that IPv4 address:
    ///   IPv4-mapped (`::ffff:0:0/96`), NAT64's well-known prefix (`64:ff9b::/96`), 6to4
    ///   (`2002::/16`, the address after the prefix) and Teredo (`2001::/32`: the server address
    ///   and the client address, stored with its bits inverted), so `2002:a00:1::` (10.0.0.1) is
    ///   as private as 10.0.0.1.
    /// - Every block the registries mark not globally reachable, plus multicast (224.0.0.0/4,
    ///   ff00::/8) and deprecated site-local (fec0::/10), is named by its most specific block
    ///   (`nonPublicTable`).
    /// - IPv6 outside 2000::/3, the only space IANA allocates for global unicast, is reserved.
    public var nonPublicKind: String? {
        switch self {
        case .v4(let a, let b, let c, let d): return Self.kind(v4: [a, b, c, d])
        case .v6(let bytes):
            guard bytes.count == 16 else { return "malformed" }
            return Self.kind(v6: bytes)
        }
    }

    private static func kind(v4 bytes: [UInt8]) -> String? {
        if publicExceptions.contains(where: { $0.contains(bytes) }) { return nil }
        return nonPublicBlocks.first { $0.contains(bytes) }?.kind
    }

    private static func kind(v6 bytes: [UInt8]) -> String? {
        if publicExceptions.contains(where: { $0.contains(bytes) }) { return nil }
        for carrier in [ipv4Mapped, nat64WellKnown] where carrier.contains(bytes) {
            return kind(v4: Array(bytes[12..<16])).map { "\($0) in \(carrier.kind)" }
        }
        if sixToFour.contains(bytes) {
            return kind(v4: Array(bytes[2..<6])).map { "\($0) in \(sixToFour.kind)" }
        }
        if teredo.contains(bytes) {
            if let server = kind(v4: Array(bytes[4..<8])) { return "\(server) as the server of \(teredo.kind)" }
            return kind(v4: bytes[12..<16].map { ~$0 }).map { "\($0) as the client of \(teredo.kind)" }
        }
        if let block = nonPublicBlocks.first(where: { $0.contains(bytes) }) { return block.kind }
        if bytes[0] & 0xE0 != 0x20 { return "reserved by the IETF (outside 2000::/3, the global unicast space)" }
        return nil
    }

    /// The blocks that are not on the public internet, as the registries name them (multicast and
    /// site-local from the IPv4 multicast and IPv6 address-space registries). A more specific
    /// block is matched before the block that contains it.
    static let nonPublicTable: [(prefix: String, name: String)] = [
        // IPv4 special-purpose registry, not globally reachable.
        ("0.0.0.0/8", "this network"),
        ("10.0.0.0/8", "private-use"),
        ("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local (169.254.169.254 is cloud metadata)"),
        ("172.16.0.0/12", "private-use"),
        ("192.0.0.0/24", "IETF protocol assignments"),
        ("192.0.0.0/29", "IPv4 service continuity (DS-Lite)"),
        ("192.0.0.8/32", "IPv4 dummy address"),
        ("192.0.0.170/31", "NAT64/DNS64 discovery"),
        ("192.0.2.0/24", "documentation (TEST-NET-1)"),
        ("192.88.99.0/24", "deprecated 6to4 relay anycast"),
        ("192.168.0.0/16", "private-use"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation (TEST-NET-2)"),
        ("203.0.113.0/24", "documentation (TEST-NET-3)"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
        ("255.255.255.255/32", "limited broadcast"),
        // IPv6 special-purpose registry, not globally reachable.
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("::/96", "IPv4-compatible (deprecated)"),
        ("::ffff:0:0:0/96", "IPv4-translated (SIIT)"),
        ("64:ff9b:1::/48", "IPv4/IPv6 translation for local use"),
        ("100::/64", "discard-only"),
        ("100:0:0:1::/64", "dummy prefix"),
        ("2001::/23", "IETF protocol assignments"),
        ("2001:2::/48", "benchmarking"),
        ("2001:10::/28", "deprecated ORCHID"),
        ("2001:db8::/32", "documentation"),
        ("3fff::/20", "documentation"),
        ("5f00::/16", "segment routing (SRv6) SIDs"),
        ("fc00::/7", "unique-local (fd00:ec2::254 is cloud metadata)"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local (deprecated)"),
        ("ff00::/8", "multicast"),
    ]

    /// Blocks the registries mark globally reachable inside blocks of ``nonPublicTable``.
    static let publicExceptionTable: [(prefix: String, name: String)] = [
        ("192.0.0.9/32", "Port Control Protocol anycast"),
        ("192.0.0.10/32", "TURN anycast"),
        ("2001:1::1/128", "Port Control Protocol anycast"),
        ("2001:1::2/128", "TURN anycast"),
        ("2001:1::3/128", "DNS-SD service registration anycast"),
        ("2001:3::/32", "AMT"),
        ("2001:4:112::/48", "AS112-v6"),
        ("2001:20::/28", "ORCHIDv2"),
        ("2001:30::/28", "drone remote ID entity tags"),
    ]

    static let nonPublicBlocks = nonPublicTable.compactMap { Block($0) }.sorted { $0.length > $1.length }
    static let publicExceptions = publicExceptionTable.compactMap { Block($0) }
    static let ipv4Mapped = Block(parsing: "::ffff:0:0/96", name: "IPv4-mapped")
    static let nat64WellKnown = Block(parsing: "64:ff9b::/96", name: "NAT64")
    static let sixToFour = Block(parsing: "2002::/16", name: "6to4")
    static let teredo = Block(parsing: "2001::/32", name: "Teredo")

    /// An address prefix (4 or 16 bytes, and how many leading bits count) with its registry name.
    struct Block: Sendable {
        var bytes: [UInt8]
        var length: Int
        var name: String
        var prefix: String

        /// `name (prefix)`, as ``IPAddress/nonPublicKind`` says it.
        var kind: String { "\(name) (\(prefix))" }

        /// Parses `10.0.0.0/8` or `2001:db8::/32`; `nil` for anything else.
        init?(_ entry: (prefix: String, name: String)) {
            let parts = entry.prefix.split(separator: "/")
            guard parts.count == 2, let length = Int(parts[1]) else { return nil }
            if case .v4(let a, let b, let c, let d)? = IPAddress.parseV4(parts[0]) {
                bytes = [a, b, c, d]
            } else if let v6 = IPAddress.parseV6(parts[0]) {
                bytes = v6
            } else {
                return nil
            }
            guard (0...bytes.count * 8).contains(length) else { return nil }
            self.length = length
            self.name = entry.name
            self.prefix = entry.prefix
        }

        /// A block written in this file, so known to parse; should one not, a block that matches
        /// nothing (which the tests notice) rather than a trap.
        init(parsing prefix: String, name: String) {
            self = Block((prefix, name)) ?? Block(bytes: [], length: 0, name: name, prefix: prefix)
        }

        private init(bytes: [UInt8], length: Int, name: String, prefix: String) {
            self.bytes = bytes
            self.length = length
            self.name = name
            self.prefix = prefix
        }

        /// Whether `address` (of the same family) starts with this prefix.
        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = length
            for index in bytes.indices where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                guard address[index] & mask == bytes[index] & mask else { return false }
                remaining -= bits
            }
            return true
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
#endif
