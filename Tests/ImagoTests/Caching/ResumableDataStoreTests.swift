import Foundation
import Testing

@testable import Imago

/// The store of partial downloads holds what it is given, hands each out once, and stays within
/// its count and byte limits.
@Suite struct ResumableDataStoreTests {
    static func partial(_ bytes: Int, seed: UInt8 = 1) -> ResumableData {
        ResumableData(data: Data(repeating: seed, count: bytes), totalLength: bytes * 2, etag: "\"\(seed)\"", lastModified: nil)
    }

    static func key(_ index: Int, headers: [String: String] = [:]) -> ResumableDataStore.Key {
        ResumableDataStore.Key(url: "http://127.0.0.1/\(index).jpg", headers: headers)
    }

    @Test func handsOutWhatWasKeptOnce() {
        let store = ResumableDataStore()
        store.store(Self.partial(10), for: Self.key(1))
        #expect(store.take(Self.key(1)) == Self.partial(10))
        #expect(store.take(Self.key(1)) == nil)
        #expect(store.count == 0)
    }

    @Test func anotherSetOfHeadersIsAnotherDownload() {
        let store = ResumableDataStore()
        store.store(Self.partial(10), for: Self.key(1, headers: ["Authorization": "Bearer a"]))
        #expect(store.take(Self.key(1, headers: ["Authorization": "Bearer b"])) == nil)
        #expect(store.take(Self.key(1)) == nil)
        #expect(store.take(Self.key(1, headers: ["Authorization": "Bearer a"])) != nil)
    }

    @Test func staysWithinItsCount() {
        let store = ResumableDataStore(countLimit: 3, costLimit: 1_000_000)
        for index in 0..<10 { store.store(Self.partial(10, seed: UInt8(index)), for: Self.key(index)) }
        #expect(store.count == 3)
        #expect(store.totalBytes == 30)
        // The newest are kept.
        #expect(store.take(Self.key(9)) == Self.partial(10, seed: 9))
    }

    @Test func staysWithinItsBytes() {
        let store = ResumableDataStore(countLimit: 100, costLimit: 1_000)
        for index in 0..<10 { store.store(Self.partial(300, seed: UInt8(index)), for: Self.key(index)) }
        #expect(store.totalBytes <= 1_000)
        #expect(store.count == 3)
        // A partial download larger than the whole limit is not kept at all.
        store.store(Self.partial(1_001), for: Self.key(99))
        #expect(store.take(Self.key(99)) == nil)
        #expect(store.totalBytes <= 1_000)
    }

    @Test func removeAllForgetsEverything() {
        let store = ResumableDataStore()
        store.store(Self.partial(10), for: Self.key(1))
        store.removeAll()
        #expect(store.count == 0 && store.totalBytes == 0)
        #expect(store.take(Self.key(1)) == nil)
        // Emptied, it keeps again.
        store.store(Self.partial(20), for: Self.key(2))
        #expect(store.take(Self.key(2)) == Self.partial(20))
    }

    /// Every download asks the store; while nothing was ever kept (or since it was emptied) the
    /// question costs neither the key, whose URL is written out, nor the cache's lock.
    @Test func anEmptyStoreAnswersWithoutMakingTheKey() {
        let store = ResumableDataStore()
        var keysMade = 0
        func key() -> ResumableDataStore.Key {
            keysMade += 1
            return Self.key(1)
        }
        #expect(store.take(key()) == nil)
        #expect(keysMade == 0)
        store.store(Self.partial(10), for: Self.key(1))
        #expect(store.take(key()) == Self.partial(10))
        #expect(keysMade == 1)
        store.removeAll()
        #expect(store.take(key()) == nil)
        #expect(keysMade == 1)
    }
}
