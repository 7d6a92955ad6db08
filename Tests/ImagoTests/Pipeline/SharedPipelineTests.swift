import Imago
import Testing

/// `ImagePipeline.shared`: made once on first use, replaceable, safe from any thread.
@Suite("Shared pipeline")
struct SharedPipelineTests {
    @Test("Every reader gets the same pipeline, from any task; setting replaces it")
    func sharedIsOneAndSettable() async {
        let original = ImagePipeline.shared
        let seen = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<32 { group.addTask { ObjectIdentifier(ImagePipeline.shared) } }
            return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(seen == [ObjectIdentifier(original)])

        var configuration = ImagePipeline.Configuration(memoryCache: nil)
        configuration.maximumConcurrentDownloads = 2
        let replacement = ImagePipeline(configuration: configuration)
        ImagePipeline.shared = replacement
        defer { ImagePipeline.shared = original }
        #expect(ImagePipeline.shared === replacement)
        let fromTask = await Task.detached { ImagePipeline.shared.configuration.maximumConcurrentDownloads }.value
        #expect(fromTask == 2)
    }
}
