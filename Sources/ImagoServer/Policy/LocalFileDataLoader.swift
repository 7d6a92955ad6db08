#if os(Linux)
import Foundation
import Imago

#if canImport(Glibc)
import Glibc
#endif

/// The proxy's ``DataLoading`` when it has a local filesystem root (imgproxy's
/// `IMGPROXY_LOCAL_FILESYSTEM_ROOT`): a `local:///path/in/root.jpg` source is read from that
/// folder, every other URL goes to the guarded HTTP loader it wraps. Local files thus go through
/// the pipeline like any download (its disk cache, decoded tier, limits), and the source policy's
/// address rules, which are about the network, do not apply to the operator's own folder.
///
/// A path never leads out of the root: a `..` segment or a percent-encoded slash, backslash or
/// NUL is refused before the file system is asked; the path is then resolved (`realpath`, every
/// symbolic link followed) and must stay under the root's own resolved path; the file is opened
/// at that resolved path without following a link (`O_NOFOLLOW`) or waiting for a writer
/// (`O_NONBLOCK`: a FIFO), and must be a regular file.
/// A refusal is a source-policy refusal (403 `forbidden_source`); a missing file is a 404. The
/// path ends at the query separator (``SourceURLQuerySeparator``; what follows is ignored).
package final class LocalFileDataLoader: DataLoading {
    /// The scheme served from the root.
    package static let scheme = "local"
    /// The folder sources are read from, as configured (resolved at each request, so a root that
    /// is itself a link may be repointed).
    package let root: String
    private let network: any DataLoading
    private let maximumBodySize: Int
    private let querySeparator: SourceURLQuerySeparator

    /// Reads `local:` sources under `root` (at most `maximumBodySize` bytes, unless a request
    /// asks for less), each path ending at `querySeparator`, and hands every other URL to `network`.
    package init(
        root: String, network: any DataLoading, maximumBodySize: Int, querySeparator: SourceURLQuerySeparator = .standard
    ) {
        self.root = root
        self.network = network
        self.maximumBodySize = maximumBodySize
        self.querySeparator = querySeparator
    }

    package func loadData(
        for request: DataLoader.Request, progress: @escaping @Sendable (ImageTask.Progress) -> Void
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        guard request.url.scheme?.lowercased() == Self.scheme else {
            return try await network.loadData(for: request, progress: progress)
        }
        let limit = min(request.maximumBodySize ?? maximumBodySize, maximumBodySize)
        let (data, modified) = try Self.read(request.url, under: root, limit: limit, separator: querySeparator)
        progress(ImageTask.Progress(completed: Int64(data.count), total: Int64(data.count)))
        // The file's modification time, as an HTTP server would send it (IMGPROXY_USE_LAST_MODIFIED).
        return DataLoader.Response(data: data, statusCode: 200, headers: ["last-modified": HTTPDate.imfFixdate(modified)])
    }

    /// The resolved file `url` names under `root` (its path ending at `separator`), or the error
    /// it fails with.
    package static func resolve(
        _ url: URL, under root: String, separator: SourceURLQuerySeparator = .standard
    ) throws(ImagePipeline.Error) -> String {
        let refused = { (detail: String) in
            ImagePipeline.Error.connectionFailed(url, reason: SourcePolicy.Refusal.outsideRoot.reason(detail: detail))
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw refused("the local URL does not parse")
        }
        guard (components.percentEncodedHost ?? "").isEmpty else { throw refused("a local URL has no host: local:///path") }
        let encoded = separator.encodedText(of: components)
        let lowered = encoded.lowercased()
        for escape in ["%2f", "%5c", "%00"] where lowered.contains(escape) {
            throw refused("the path has an encoded slash, backslash or NUL")
        }
        guard let decoded = encoded.removingPercentEncoding else { throw refused("the path has a malformed escape") }
        let path = separator.split(decoded, components: components).path
        let segments = path.split(separator: "/")
        guard !segments.contains(where: { $0 == ".." }), !path.contains("\\") else { throw refused("the path has a .. segment") }
        guard let realRoot = realPath(root) else {
            throw .connectionFailed(url, reason: "the local filesystem root \(root) cannot be resolved")
        }
        let candidate = (realRoot == "/" ? "" : realRoot) + "/" + segments.joined(separator: "/")
        guard let real = realPath(candidate) else {
            throw .httpStatus(url, statusCode: 404)
        }
        guard real.hasPrefix(realRoot == "/" ? "/" : realRoot + "/") else { throw refused("\(path) resolves outside the root") }
        return real
    }

    /// The bytes of the file `url` names under `root`, at most `limit` of them, and when the file
    /// was last modified.
    static func read(
        _ url: URL, under root: String, limit: Int, separator: SourceURLQuerySeparator = .standard
    ) throws(ImagePipeline.Error) -> (data: Data, modified: Date) {
        let path = try resolve(url, under: root, separator: separator)
        // O_NONBLOCK: a FIFO would block `open` until a writer came; for a regular file it
        // changes nothing, and anything else is refused below.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw .httpStatus(url, statusCode: 404) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw .httpStatus(url, statusCode: 404)  // a folder or a device is no source
        }
        guard status.st_size <= limit else { throw .bodyTooLarge(url, limit: limit) }
        let data: Data
        do {
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw .connectionFailed(url, reason: "the local file could not be read (\(error))")
        }
        guard data.count <= limit else { throw .bodyTooLarge(url, limit: limit) }
        return (data, Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec)))
    }

    /// `path` with every link, `.` and `..` resolved, or `nil` when it does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
#endif
