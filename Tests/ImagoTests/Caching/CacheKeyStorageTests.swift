import Foundation
import Testing

@testable import Imago

/// Keys are built once and kept: in the request (rebuilt when a field they depend on changes) and
/// with their hash in ``CacheKey``.
@Suite("Cache keys kept with the request")
struct CacheKeyStorageTests {
    private static let base = URL(string: "https://cdn.example.com/a.jpg")!

    /// What the keys must be: built from scratch from the request's fields, as before they were kept.
    private func expectedKeys(_ request: ImageRequest) -> (CacheKey, CacheKey) {
        let original = CacheKey.original(request.cacheKeyOverride ?? request.url.absoluteString)
        var processed = original
        var isFirst = true
        if let size = request.maximumPixelSize {
            processed.appendStep(ThumbnailProcessor(maximumPixelSize: size).identifier, isFirst: true)
            isFirst = false
        }
        for processor in request.processors {
            processed.appendStep(processor.identifier, isFirst: isFirst)
            isFirst = false
        }
        return (original, processed)
    }

    private func expectKeysMatchFields(_ request: ImageRequest, _ comment: Comment) {
        let (original, processed) = expectedKeys(request)
        #expect(request.originalKey == original, comment)
        #expect(request.processedKey == processed, comment)
    }

    @Test("Changing the URL, thumbnail, processors or override rebuilds the keys; a copy keeps its own")
    func mutationRefreshesKeys() {
        var request = ImageRequest(url: Self.base)
        let copy = request
        expectKeysMatchFields(request, "initial")
        request.url = URL(string: "https://cdn.example.com/b.jpg")!
        expectKeysMatchFields(request, "url")
        #expect(request.originalKey.rawValue == "https://cdn.example.com/b.jpg")
        request.maximumPixelSize = 64
        expectKeysMatchFields(request, "thumbnail")
        request.processors.append(ImageProcessors.Crop(x: 0, y: 0, width: 10, height: 10))
        expectKeysMatchFields(request, "processor appended")
        #expect(request.processedKey != ImageRequest(url: request.url, maximumPixelSize: 64).processedKey)
        request.processors.removeAll()
        request.maximumPixelSize = nil
        expectKeysMatchFields(request, "processing removed")
        #expect(request.processedKey == request.originalKey)
        request.cacheKeyOverride = "photo-1"
        expectKeysMatchFields(request, "override")
        #expect(request.originalKey == CacheKey("photo-1"))
        request.cacheKeyOverride = nil
        expectKeysMatchFields(request, "override cleared")

        #expect(copy.processedKey == CacheKey(Self.base.absoluteString))
        expectKeysMatchFields(copy, "copy")
        // Unrelated fields leave the keys alone.
        var other = copy
        other.priority = .veryHigh
        other.headers = ["Authorization": "x"]
        #expect(other.processedKey == copy.processedKey)
    }

    @Test("A key keeps its hash with its text: equal text is equal and hashes alike, a changed key is found under its new text")
    func keptHashFollowsTheText() {
        var key = CacheKey("https://cdn.example.com/a.jpg")
        let same = CacheKey("https://cdn.example.com/" + "a.jpg")
        #expect(key == same && key.hashValue == same.hashValue)
        var table: [CacheKey: Int] = [same: 1]
        key.rawValue = "https://cdn.example.com/b.jpg"
        #expect(key != same)
        #expect(table[key] == nil)
        table[key] = 2
        #expect(table[CacheKey("https://cdn.example.com/b.jpg")] == 2)
        key.appendStep("thumbnail(8)", isFirst: true)
        #expect(key == CacheKey("https://cdn.example.com/b.jpg\u{1F}12:thumbnail(8)"))
        #expect(key.hashValue == CacheKey("https://cdn.example.com/b.jpg\u{1F}12:thumbnail(8)").hashValue)
        let literal: CacheKey = "k"
        #expect(literal == CacheKey("k") && literal.hashValue == CacheKey("k").hashValue)
    }
}
