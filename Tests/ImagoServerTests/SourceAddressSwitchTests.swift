#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's three switches, `IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES`, `…_PRIVATE_…` and
/// `…_LINK_LOCAL_…`: each opens its kind of address only (embedded IPv4 judged as itself), the
/// rest of the non-public space stays closed, and `--allow-private-networks` opens every kind.
@Suite struct SourceAddressSwitchTests {
    static func refused(_ text: String, _ configure: (inout SourcePolicy) -> Void) throws -> Bool {
        var policy = SourcePolicy()
        configure(&policy)
        return policy.refusal(for: try #require(IPAddress(text)), host: "h", port: 80) != nil
    }

    @Test(arguments: ["127.0.0.1", "127.9.9.9", "::1", "0.0.0.0", "::", "::ffff:127.0.0.1", "2002:7f00:1::"])
    func loopbackOpensLoopbackOnly(address: String) throws {
        #expect(try Self.refused(address) { _ in })
        #expect(try !Self.refused(address) { $0.allowsLoopbackAddresses = true })
        #expect(try Self.refused(address) { $0.allowsPrivateAddresses = true; $0.allowsLinkLocalAddresses = true })
    }

    @Test(arguments: ["10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1", "fd00::1", "::ffff:10.0.0.1", "64:ff9b::c0a8:101"])
    func privateOpensPrivateUseOnly(address: String) throws {
        #expect(try Self.refused(address) { _ in })
        #expect(try !Self.refused(address) { $0.allowsPrivateAddresses = true })
        #expect(try Self.refused(address) { $0.allowsLoopbackAddresses = true; $0.allowsLinkLocalAddresses = true })
    }

    @Test(arguments: ["169.254.169.254", "fe80::1", "224.0.0.251", "ff02::fb"])
    func linkLocalOpensLinkLocalOnly(address: String) throws {
        #expect(try Self.refused(address) { _ in })
        #expect(try !Self.refused(address) { $0.allowsLinkLocalAddresses = true })
        #expect(try Self.refused(address) { $0.allowsLoopbackAddresses = true; $0.allowsPrivateAddresses = true })
    }

    /// Blocks of none of the three kinds stay closed with all three on; the old flag opens them.
    @Test(arguments: ["192.0.2.1", "198.18.0.1", "239.1.1.1", "ff05::1", "2001:db8::1", "fec0::1", "240.0.0.1"])
    func otherNonPublicBlocksNeedTheWholeFlag(address: String) throws {
        #expect(try Self.refused(address) {
            $0.allowsLoopbackAddresses = true; $0.allowsPrivateAddresses = true; $0.allowsLinkLocalAddresses = true
        })
        #expect(try !Self.refused(address) { $0.allowsPrivateNetworks = true })
    }

    /// Teredo carries two IPv4 addresses: both must be of an allowed kind (or public).
    @Test func aCarrierIsOpenOnlyWhenEveryAddressItHoldsIs() throws {
        // Server 10.0.0.1, client 127.0.0.1 (stored inverted: 0x80ff:fffe).
        let teredo = "2001:0:a00:1::80ff:fffe"
        #expect(try Self.refused(teredo) { $0.allowsPrivateAddresses = true })
        #expect(try Self.refused(teredo) { $0.allowsLoopbackAddresses = true })
        #expect(try !Self.refused(teredo) { $0.allowsPrivateAddresses = true; $0.allowsLoopbackAddresses = true })
        #expect(try !Self.refused("8.8.8.8") { _ in })
    }

    @Test func theEnvironmentSetsEachSwitchAndNamesABadValue() throws {
        let environment = try ServeEnvironment([
            "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true", "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES": "0",
            "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES": "T", "IMGPROXY_ALLOWED_SOURCES": "http://127.0.0.1/",
        ])
        var policy = SourcePolicy()
        environment.apply(to: &policy)
        #expect(policy.allowsLoopbackAddresses && !policy.allowsPrivateAddresses && policy.allowsLinkLocalAddresses)
        #expect(policy.allowedNetworkKinds == [.loopback, .linkLocal] && policy.allowedSources == ["http://127.0.0.1/"])
        var untouched = SourcePolicy(allowsPrivateNetworks: true)
        try ServeEnvironment([:]).apply(to: &untouched)
        #expect(untouched == SourcePolicy(allowsPrivateNetworks: true))
        for name in [
            "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES", "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES", "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES",
        ] {
            #expect {
                _ = try ServeEnvironment([name: "yes"])
            } throws: { error in
                (error as? ServeEnvironmentError)?.variable == name
            }
        }
    }

    /// Each switch is its own cache folder: a folder filled under one set of switches is not read
    /// under another.
    @Test func eachSetOfSwitchesHasItsOwnCacheFolderName() {
        var loopback = SourcePolicy()
        loopback.allowsLoopbackAddresses = true
        var linkLocal = SourcePolicy()
        linkLocal.allowsLinkLocalAddresses = true
        let names = [SourcePolicy(), loopback, linkLocal, SourcePolicy(allowsPrivateNetworks: true)].map(ProxyCacheDirectory.fingerprint(of:))
        #expect(Set(names).count == 4 && names[0] == "public")
    }

    /// Through a real proxy and a loopback origin: the loopback switch alone lets it be fetched.
    @Test func aLoopbackOriginIsFetchedWithTheLoopbackSwitchAlone() async throws {
        let origin = try await TestServer.start()
        origin.set("/a.jpg", data: try Fixtures.jpeg(width: 40, height: 30), contentType: "image/jpeg")
        var closed = ImageProxyConfiguration()
        closed.sourcePolicy.allowsPrivateAddresses = true
        closed.sourcePolicy.allowsLinkLocalAddresses = true
        let refused = ImageProxy.testing(closed)
        let answer = await refused.respond(path: ServerTests.path("w:20", origin.url(for: "/a.jpg")))
        #expect(answer.status == 403)
        await refused.shutdown()
        var open = ImageProxyConfiguration()
        open.sourcePolicy.allowsLoopbackAddresses = true
        let allowed = ImageProxy.testing(open)
        let image = await allowed.respond(path: ServerTests.path("w:20", origin.url(for: "/a.jpg")))
        #expect(image.status == 200, "\(String(decoding: image.body, as: UTF8.self))")
        await allowed.shutdown()
        try await origin.shutdown()
    }
}
#endif
