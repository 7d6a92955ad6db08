#if os(Linux)
import Foundation
import Imago

/// Serves the configured fallback image's bytes (``FallbackImage/Source/data(_:)``) under
/// ``FallbackImage/dataURL``, so the pipeline decodes and renders it as any source (its tier of
/// decoded originals keeps it decoded); every other URL goes to the loader it wraps.
final class FallbackDataLoader: DataLoading {
    private let data: Data
    private let next: any DataLoading

    init(data: Data, next: any DataLoading) {
        self.data = data
        self.next = next
    }

    func loadData(
        for request: DataLoader.Request, progress: @escaping @Sendable (ImageTask.Progress) -> Void
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        guard request.url.scheme?.lowercased() == FallbackImage.scheme else {
            return try await next.loadData(for: request, progress: progress)
        }
        progress(ImageTask.Progress(completed: Int64(data.count), total: Int64(data.count)))
        return DataLoader.Response(data: data, statusCode: 200, headers: [:])
    }
}
#endif
