import Foundation
import Testing

@testable import Imago

@Suite("DiskCache entry names")
struct DiskCacheEntryNameTests {
    private typealias EntryName = DiskCache.EntryName

    @Test(arguments: ["", "a", "https://images.example.com/cat.jpg", String(repeating: "é", count: 300)])
    func spellsTheSHA256OfTheKey(key: String) throws {
        let name = EntryName(key: CacheKey(key))
        #expect(name.description == StableHash.sha256Hex(key))
        #expect(EntryName(fileName: name.description) == name)
        #expect(name.path(in: "/var/cache/imago/entries") == "/var/cache/imago/entries/" + StableHash.sha256Hex(key))
        let cName = try #require(name.description.cString(using: .utf8))
        #expect(cName.withUnsafeBufferPointer { EntryName(fileName: $0.baseAddress!) } == name)
    }

    @Test(arguments: [
        "",
        String(repeating: "0", count: 63),
        String(repeating: "0", count: 65),
        String(repeating: "A", count: 64),  // upper case is not how entries are spelt
        String(repeating: "0", count: 63) + "g",
        String(repeating: "0", count: 48) + "abcdef012345678-",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.3f2a",  // a temporary file
        "é" + String(repeating: "0", count: 62),  // 64 bytes, not 64 digits
    ])
    func refusesWhatIsNotAnEntryFileName(fileName: String) {
        #expect(EntryName(fileName: fileName) == nil)
    }

    @Test func readsEveryDigitOfEveryWord() {
        let digits = "0123456789abcdef"
        let fileName = String(repeating: digits, count: 4)
        #expect(EntryName(fileName: fileName)?.description == fileName)
        let rotated = String((0..<64).map { Array(digits)[($0 / 16 + $0) % 16] })
        #expect(EntryName(fileName: rotated)?.description == rotated)
    }

    @Test func ordersAsTheirSpellings() {
        let names = (0..<200).map { EntryName(key: CacheKey("key \($0)")) }
        #expect(names.sorted().map(\.description) == names.map(\.description).sorted())
        #expect(Set(names).count == 200)
    }
}
