#if os(Linux)
import Foundation
import Testing

@testable import ImagoServer

@Suite struct SourcePolicyTests {
    /// One row per class of the IANA special-purpose registries (and multicast, site-local, and
    /// IPv6 outside 2000::/3): the address, then exactly what `nonPublicKind` says.
    @Test(arguments: [
        // IPv4
        ("0.0.0.0", "this network (0.0.0.0/8)"),
        ("10.1.2.3", "private-use (10.0.0.0/8)"),
        ("100.64.0.1", "shared address space (carrier-grade NAT) (100.64.0.0/10)"),
        ("100.127.255.255", "shared address space (carrier-grade NAT) (100.64.0.0/10)"),
        ("127.0.0.1", "loopback (127.0.0.0/8)"),
        ("169.254.169.254", "link-local (169.254.169.254 is cloud metadata) (169.254.0.0/16)"),
        ("172.16.0.1", "private-use (172.16.0.0/12)"),
        ("172.31.255.255", "private-use (172.16.0.0/12)"),
        ("192.0.0.200", "IETF protocol assignments (192.0.0.0/24)"),
        ("192.0.0.1", "IPv4 service continuity (DS-Lite) (192.0.0.0/29)"),
        ("192.0.0.8", "IPv4 dummy address (192.0.0.8/32)"),
        ("192.0.0.171", "NAT64/DNS64 discovery (192.0.0.170/31)"),
        ("192.0.2.1", "documentation (TEST-NET-1) (192.0.2.0/24)"),
        ("192.88.99.1", "deprecated 6to4 relay anycast (192.88.99.0/24)"),
        ("192.168.1.1", "private-use (192.168.0.0/16)"),
        ("198.19.0.1", "benchmarking (198.18.0.0/15)"),
        ("198.51.100.7", "documentation (TEST-NET-2) (198.51.100.0/24)"),
        ("203.0.113.7", "documentation (TEST-NET-3) (203.0.113.0/24)"),
        ("224.0.0.1", "multicast (224.0.0.0/4)"),
        ("240.0.0.1", "reserved (240.0.0.0/4)"),
        ("255.255.255.255", "limited broadcast (255.255.255.255/32)"),
        // IPv6
        ("::", "unspecified (::/128)"),
        ("::1", "loopback (::1/128)"),
        ("[::1]", "loopback (::1/128)"),
        ("::8.8.8.8", "IPv4-compatible (deprecated) (::/96)"),
        ("::ffff:127.0.0.1", "loopback (127.0.0.0/8) in IPv4-mapped (::ffff:0:0/96)"),
        ("::ffff:7f00:1", "loopback (127.0.0.0/8) in IPv4-mapped (::ffff:0:0/96)"),
        ("::ffff:0:8.8.8.8", "IPv4-translated (SIIT) (::ffff:0:0:0/96)"),
        ("64:ff9b::a9fe:a9fe", "link-local (169.254.169.254 is cloud metadata) (169.254.0.0/16) in NAT64 (64:ff9b::/96)"),
        ("64:ff9b:1::808:808", "IPv4/IPv6 translation for local use (64:ff9b:1::/48)"),
        ("100::1", "discard-only (100::/64)"),
        ("100:0:0:1::1", "dummy prefix (100:0:0:1::/64)"),
        ("2001:2::1", "benchmarking (2001:2::/48)"),
        ("2001:10::1", "deprecated ORCHID (2001:10::/28)"),
        ("2001:100::1", "IETF protocol assignments (2001::/23)"),
        ("2001:1::4", "IETF protocol assignments (2001::/23)"),
        // Teredo: server 65.54.227.120, client 10.0.0.1 stored inverted (f5ff:fffe).
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "private-use (10.0.0.0/8) as the client of Teredo (2001::/32)"),
        // Teredo: server 10.0.0.1, client 8.8.8.8 (f7f7:f7f7).
        ("2001:0:a00:1:8000:63bf:f7f7:f7f7", "private-use (10.0.0.0/8) as the server of Teredo (2001::/32)"),
        ("2001:db8::1", "documentation (2001:db8::/32)"),
        ("2002:0a00:0001::", "private-use (10.0.0.0/8) in 6to4 (2002::/16)"),
        ("2002:c0a8:0101::1", "private-use (192.168.0.0/16) in 6to4 (2002::/16)"),
        ("3fff::1", "documentation (3fff::/20)"),
        ("5f00::1", "segment routing (SRv6) SIDs (5f00::/16)"),
        ("fd00:ec2::254", "unique-local (fd00:ec2::254 is cloud metadata) (fc00::/7)"),
        ("fe80::1", "link-local (fe80::/10)"),
        ("fec0::1", "site-local (deprecated) (fec0::/10)"),
        ("ff02::1", "multicast (ff00::/8)"),
        ("4000::1", "reserved by the IETF (outside 2000::/3, the global unicast space)"),
        ("fe00::1", "reserved by the IETF (outside 2000::/3, the global unicast space)"),
    ])
    func refusesNonPublicAddresses(address: String, kind: String) throws {
        let parsed = try #require(IPAddress(address))
        #expect(parsed.nonPublicKind == kind, "\(address)")
        #expect(SourcePolicy().refusal(for: parsed, host: "h", port: 80)?.hasPrefix(SourcePolicy.refusalMarker) == true)
        #expect(SourcePolicy(allowsPrivateNetworks: true).refusal(for: parsed, host: "h", port: 80) == nil)
        #expect(SourcePolicy(allowedAddresses: [parsed]).refusal(for: parsed, host: "h", port: 80) == nil)
        // An endpoint allows its one port of the address.
        let endpoint = SourcePolicy(allowedEndpoints: [SourcePolicy.Endpoint(parsed, port: 8123)])
        #expect(endpoint.refusal(for: parsed, host: "h", port: 8123) == nil)
        #expect(endpoint.refusal(for: parsed, host: "h", port: 8124)?.hasPrefix(SourcePolicy.refusalMarker) == true)
    }

    /// Public addresses, including the blocks the registries mark globally reachable inside
    /// non-public ones, and IPv6 that carries a public IPv4 address.
    @Test(arguments: [
        "8.8.8.8", "93.184.216.34", "172.32.0.1", "100.128.0.1", "100.63.255.255", "192.0.1.1", "192.88.98.1",
        "198.20.0.1", "223.255.255.255",
        "192.0.0.9", "192.0.0.10", "192.31.196.1", "192.52.193.1", "192.175.48.1",
        "2606:4700::1111", "2001:4860:4860::8888", "2001:200::1", "2a00:1450:4001::1",
        "2001:1::1", "2001:1::2", "2001:1::3", "2001:3::1", "2001:4:112::1", "2001:20::1", "2001:30::1",
        "2620:4f:8000::1", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
        // Teredo whose server and client are public: client 8.8.8.8 stored inverted.
        "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
    ])
    func acceptsPublicAddresses(address: String) throws {
        let parsed = try #require(IPAddress(address))
        #expect(parsed.nonPublicKind == nil, "\(address): \(parsed.nonPublicKind ?? "")")
        #expect(SourcePolicy().refusal(for: parsed, host: "h", port: 80) == nil)
    }

    /// Every prefix written in the tables parses (a typo would silently drop a block).
    @Test func everyRegistryPrefixParses() {
        #expect(IPAddress.nonPublicBlocks.count == IPAddress.nonPublicTable.count)
        #expect(IPAddress.publicExceptions.count == IPAddress.publicExceptionTable.count)
        for block in IPAddress.nonPublicBlocks + IPAddress.publicExceptions {
            #expect(block.bytes.count == 4 || block.bytes.count == 16, "\(block.prefix)")
        }
    }

    @Test(arguments: ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1:2:3:4:5:6:7:8:9", "::g", "1::2::3", "example.com"])
    func refusesMalformedLiterals(text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func checksSchemeAndAllowList() throws {
        let policy = SourcePolicy(allowedHosts: ["images.example.com", "*.cdn.example.org"])
        #expect(policy.refusal(for: try #require(URL(string: "https://images.example.com/a.jpg"))) == nil)
        #expect(policy.refusal(for: try #require(URL(string: "http://a.b.cdn.example.org/a.jpg"))) == nil)
        #expect(policy.refusal(for: try #require(URL(string: "http://cdn.example.org/a.jpg"))) != nil)
        #expect(policy.refusal(for: try #require(URL(string: "http://evil-cdn.example.org/a.jpg"))) != nil)
        #expect(policy.refusal(for: try #require(URL(string: "http://example.com/a.jpg"))) != nil)
        #expect(SourcePolicy().refusal(for: try #require(URL(string: "ftp://example.com/a.jpg"))) != nil)
        #expect(SourcePolicy().refusal(for: try #require(URL(string: "file:///etc/passwd"))) != nil)
    }

    /// What a client may see of each refusal: the rule, never the host, the address or its kind;
    /// the log gets all of it.
    @Test func clientMessagesNameOnlyTheRule() throws {
        let policy = SourcePolicy(allowedHosts: ["*.example.com"])
        let cases: [(reason: String?, client: String, secrets: [String])] = [
            (policy.refusal(for: IPAddress("10.1.2.3") ?? .v4(0, 0, 0, 0), host: "internal.example.com", port: 80),
             "refused by the source policy: the source's address is not on the public internet",
             ["internal.example.com", "10.1.2.3", "private-use", "10.0.0.0/8"]),
            (policy.refusal(for: try #require(URL(string: "https://intranet.corp/a.jpg"))),
             "refused by the source policy: the source's host is not on the allow-list", ["intranet.corp"]),
            (policy.refusal(for: try #require(URL(string: "gopher://intranet.corp/a.jpg"))),
             "refused by the source policy: only http and https sources are fetched", ["gopher"]),
            (policy.refusal(for: try #require(URL(string: "https:///a.jpg"))),
             "refused by the source policy: the source has no host", []),
        ]
        for (reason, client, secrets) in cases {
            let reason = try #require(reason)
            #expect(reason.hasPrefix(SourcePolicy.refusalMarker))
            #expect(SourcePolicy.clientMessage(forLoaderReason: reason) == client, "\(reason)")
            for secret in secrets {
                #expect(reason.contains(secret), "the log keeps \(secret): \(reason)")
                #expect(!client.contains(secret))
            }
        }
    }

    /// Reasons that are not refusals have no client message (the caller shows its own); a
    /// refusal of a rule this version does not know is reduced to the marker.
    @Test(arguments: [
        ("the host name could not be resolved (x could not be resolved: Name or service not known)", nil),
        ("the DNS lookup of x timed out after 1 s", nil),
        ("Connection refused", nil),
        ("refused by the source policy: the source's address is not on the public internet10.0.0.1",
         "refused by the source policy"),
        ("refused by the source policy; something new", "refused by the source policy"),
        ("refused by the source policy: the source has no host", "refused by the source policy: the source has no host"),
    ] as [(String, String?)])
    func clientMessageOfOtherReasons(reason: String, expected: String?) {
        #expect(SourcePolicy.clientMessage(forLoaderReason: reason) == expected)
    }
}
#endif
