import Foundation
import Testing

@testable import ImagoServer

@Suite struct SourcePolicyTests {
    @Test(arguments: [
        ("127.0.0.1", "loopback"), ("10.1.2.3", "private"), ("172.16.0.1", "private"), ("172.31.255.255", "private"),
        ("192.168.1.1", "private"), ("169.254.169.254", "link-local"), ("100.64.0.1", "carrier-grade NAT"),
        ("0.0.0.0", "unspecified"), ("224.0.0.1", "multicast"), ("255.255.255.255", "reserved"),
        ("::1", "loopback"), ("::", "unspecified"), ("fd00:ec2::254", "unique local"), ("fe80::1", "link-local"),
        ("ff02::1", "multicast"), ("::ffff:127.0.0.1", "loopback"), ("::ffff:7f00:1", "loopback"),
        ("64:ff9b::a9fe:a9fe", "link-local"), ("2002:c0a8:0101::1", "private"), ("[::1]", "loopback"),
    ])
    func refusesNonPublicAddresses(address: String, kind: String) throws {
        let parsed = try #require(IPAddress(address))
        let found = try #require(parsed.nonPublicKind, "\(address) must be refused")
        #expect(found.contains(kind), "\(address): \(found)")
        #expect(SourcePolicy().refusal(for: parsed, host: "h")?.hasPrefix(SourcePolicy.refusalMarker) == true)
        #expect(SourcePolicy(allowsPrivateNetworks: true).refusal(for: parsed, host: "h") == nil)
    }

    @Test(arguments: ["8.8.8.8", "93.184.216.34", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])
    func acceptsPublicAddresses(address: String) throws {
        let parsed = try #require(IPAddress(address))
        #expect(parsed.nonPublicKind == nil)
    }

    @Test(arguments: ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1:2:3:4:5:6:7:8:9", "::g", "1::2::3", "example.com"])
    func refusesMalformedLiterals(text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func checksSchemeAndAllowList() {
        let policy = SourcePolicy(allowedHosts: ["images.example.com", "*.cdn.example.org"])
        #expect(policy.refusal(for: URL(string: "https://images.example.com/a.jpg")!) == nil)
        #expect(policy.refusal(for: URL(string: "http://a.b.cdn.example.org/a.jpg")!) == nil)
        #expect(policy.refusal(for: URL(string: "http://cdn.example.org/a.jpg")!) != nil)
        #expect(policy.refusal(for: URL(string: "http://evil-cdn.example.org/a.jpg")!) != nil)
        #expect(policy.refusal(for: URL(string: "http://example.com/a.jpg")!) != nil)
        #expect(SourcePolicy().refusal(for: URL(string: "ftp://example.com/a.jpg")!) != nil)
        #expect(SourcePolicy().refusal(for: URL(string: "file:///etc/passwd")!) != nil)
    }
}
