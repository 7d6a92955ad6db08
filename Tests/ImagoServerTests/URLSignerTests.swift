#if os(Linux)
import Foundation
import Testing

@testable import ImagoServer

@Suite struct URLSignerTests {
    /// imgproxy's documented key and salt; the signature was computed with Python's hmac module.
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"

    @Test func matchesAnIndependentImplementation() throws {
        let signer = try URLSigner(hexKey: Self.key, hexSalt: Self.salt)
        let part = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1wbGUuY29tL2ltYWdlcy9jdXJpb3NpdHkuanBn.png"
        #expect(signer.signature(for: part) == "4e9HplX3xN8DgbCf3GPatgfy42W8pLOfGHxXdnPxeHw")
        #expect(signer.check(signature: "4e9HplX3xN8DgbCf3GPatgfy42W8pLOfGHxXdnPxeHw", for: part) == nil)
    }

    @Test func refusesMissingAlteredAndMalformedSignatures() throws {
        let signer = try URLSigner(hexKey: Self.key, hexSalt: Self.salt)
        let path = signer.signedPath(options: ["rs:fit:100:100"], source: URL(string: "https://example.com/a.jpg")!)
        let parsed = try ProcessingPath.parse(path)
        #expect(signer.check(signature: parsed.signature, for: parsed.signedPart) == nil)
        #expect(signer.check(signature: parsed.signature, for: parsed.signedPart.replacingOccurrences(of: "100", with: "101")) == .mismatch)
        #expect(signer.check(signature: "", for: parsed.signedPart) == .missing)
        #expect(signer.check(signature: "insecure", for: parsed.signedPart) == .missing)
        #expect(signer.check(signature: "%%%", for: parsed.signedPart) == .mismatch)
        #expect(signer.check(signature: String(parsed.signature.dropLast(2)), for: parsed.signedPart) == .mismatch)
        let other = try URLSigner(hexKey: String(repeating: "00ff", count: 16), hexSalt: "")
        #expect(other.check(signature: parsed.signature, for: parsed.signedPart) == .mismatch)
    }

    @Test func loadsTheKeyFromTheEnvironmentOrAFile() throws {
        #expect(try URLSigner.load(environment: [:]) == nil)
        #expect(throws: SigningKeyError.self) { try URLSigner.load(environment: ["IMAGO_KEY": "xyz"]) }
        // A key of 31 bytes is refused, 32 accepted.
        #expect(throws: SigningKeyError.self) { try URLSigner.load(environment: ["IMAGO_KEY": String(repeating: "ab", count: 31)]) }
        #expect(try URLSigner.load(environment: ["IMAGO_KEY": String(repeating: "ab", count: 32)]) != nil)
        let fromEnvironment = try #require(try URLSigner.load(environment: ["IMAGO_KEY": Self.key, "IMAGO_SALT": Self.salt]))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("imago-key-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("IMAGO_KEY=\(Self.key)\nIMAGO_SALT = \(Self.salt)\n".utf8).write(to: file)
        let fromFile = try #require(try URLSigner.load(environment: [:], file: file.path))
        #expect(fromFile.signature(for: "/x") == fromEnvironment.signature(for: "/x"))
    }
}
#endif
