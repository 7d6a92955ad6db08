#if os(Linux)
extension IPAddress {
    /// The non-public networks imgproxy lets an operator open one at a time
    /// (`IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES`, `…_PRIVATE_…`, `…_LINK_LOCAL_…`), with the
    /// blocks imgproxy counts in each (Go's `net.IP` checks plus carrier-grade NAT).
    package enum NetworkKind: Sendable, Hashable, CaseIterable {
        /// 127.0.0.0/8, ::1, and the unspecified 0.0.0.0 and ::.
        case loopback
        /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 (CGNAT) and fc00::/7.
        case privateUse
        /// 169.254.0.0/16 and fe80::/10, and link-local multicast 224.0.0.0/24 and ff02::/16.
        case linkLocal

        var blocks: [Block] {
            switch self {
            case .loopback: Self.loopbackBlocks
            case .privateUse: Self.privateBlocks
            case .linkLocal: Self.linkLocalBlocks
            }
        }

        private static let loopbackBlocks = [
            ("127.0.0.0/8", "loopback"), ("0.0.0.0/32", "unspecified"), ("::1/128", "loopback"), ("::/128", "unspecified"),
        ].compactMap { Block($0) }
        private static let privateBlocks = [
            ("10.0.0.0/8", "private-use"), ("172.16.0.0/12", "private-use"), ("192.168.0.0/16", "private-use"),
            ("100.64.0.0/10", "shared address space"), ("fc00::/7", "unique-local"),
        ].compactMap { Block($0) }
        private static let linkLocalBlocks = [
            ("169.254.0.0/16", "link-local"), ("224.0.0.0/24", "link-local multicast"), ("fe80::/10", "link-local"),
            ("ff02::/16", "link-local multicast"),
        ].compactMap { Block($0) }
    }

    /// Whether every non-public address this one stands for is of one of `kinds`: the address
    /// itself, or, for an IPv6 address that carries IPv4 destinations (IPv4-mapped, NAT64, 6to4,
    /// Teredo's server and client), those, as ``nonPublicKind`` judges them. So with loopback
    /// allowed, `::ffff:127.0.0.1` is too, while `::ffff:10.0.0.1` still needs private-use.
    func isNonPublicOnly(in kinds: Set<NetworkKind>) -> Bool {
        guard !kinds.isEmpty else { return false }
        return destinations.allSatisfy { destination in
            if kinds.contains(where: { kind in kind.blocks.contains { $0.contains(destination) } }) { return true }
            let address: IPAddress =
                destination.count == 4 ? .v4(destination[0], destination[1], destination[2], destination[3]) : .v6(destination)
            return address.nonPublicKind == nil
        }
    }

    /// The addresses a connection to this one reaches, as bytes: itself, or the IPv4 addresses
    /// an IPv6 carrier holds (in the order ``nonPublicKind`` checks them).
    private var destinations: [[UInt8]] {
        switch self {
        case .v4(let a, let b, let c, let d): return [[a, b, c, d]]
        case .v6(let bytes):
            guard bytes.count == 16, !Self.publicExceptions.contains(where: { $0.contains(bytes) }) else { return [bytes] }
            if Self.ipv4Mapped.contains(bytes) || Self.nat64WellKnown.contains(bytes) { return [Array(bytes[12..<16])] }
            if Self.sixToFour.contains(bytes) { return [Array(bytes[2..<6])] }
            if Self.teredo.contains(bytes) { return [Array(bytes[4..<8]), bytes[12..<16].map { ~$0 }] }
            return [bytes]
        }
    }
}
#endif
