import Foundation

/// A read-only ``CacheLayer`` over a directory of images laid out like their URLs, as
/// `wget --force-directories` saves them: `https://cdn.example.com/a/b.jpg` is found at
/// `<directory>/cdn.example.com/a/b.jpg`.
///
/// Ship a mirror of your most-used images inside the app or container image, and the first
/// launch needs no network for them.
public struct BundledImageDirectory: CacheLayer {
    /// The mirror's root.
    public let directory: URL

    /// A read-only layer over the files in `directory`.
    public init(directory: URL) {
        self.directory = directory.standardizedFileURL
    }

    /// `bundle:` and the directory's name.
    public var name: String { "bundle:\(directory.lastPathComponent)" }
    /// Always `false`: bundled images are read-only.
    public var isWritable: Bool { false }

    /// The file laid out like `key`'s URL, or `nil` when there is none.
    public func data(forKey key: CacheKey) async -> Data? {
        guard let file = file(forKey: key) else { return nil }
        return try? Data(contentsOf: file, options: .mappedIfSafe)
    }

    /// Does nothing: the layer is read-only.
    public func store(_ data: Data, forKey key: CacheKey) async {}

    /// Where the image for `key` would be, or `nil` when the key is not an http(s) URL or would
    /// lead outside the directory.
    func file(forKey key: CacheKey) -> URL? {
        guard let url = URL(string: key.rawValue), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else { return nil }
        let components = [host] + url.path.split(separator: "/").map(String.init)
        guard components.allSatisfy({ $0 != ".." && $0 != "." && !$0.isEmpty }) else { return nil }
        let file = components.reduce(directory) { $0.appendingPathComponent($1) }.standardizedFileURL
        guard file.path.hasPrefix(directory.path + "/") else { return nil }
        return file
    }
}
