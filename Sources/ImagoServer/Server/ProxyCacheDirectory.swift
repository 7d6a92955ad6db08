#if os(Linux)
import Foundation
import Imago

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder of `imago serve`'s disk cache of sources: the server's alone, and holding only
/// sources fetched under the address policy it runs with now.
///
/// - Without a path: a fresh folder `imago-serve-<random>` under the temporary directory, made
///   with mode 0700 by one `mkdir` that fails if the name exists, so nobody can plant a folder
///   (or a symbolic link) there beforehand; removed at exit by the caller.
/// - With a path: made with mode 0700 when it does not exist; refused when it exists and belongs
///   to another user, is not a folder, or grants any permission to group or others (another
///   user could read the cached sources or plant entries).
///
/// Inside it, the entries live in `sources-<policy>`, named by ``SourcePolicy``'s address rules
/// (private networks, addresses and endpoints allowed): a source fetched from a private address while
/// `--allow-private-networks` was on is never served once it is off. Folders of other policies
/// are removed at start.
public struct ProxyCacheDirectory: Sendable {
    /// The folder given, or the fresh one made.
    public let root: URL
    /// Where the disk cache keeps its entries: `root/sources-<policy>`.
    public let entries: URL
    /// Whether ``root`` was made for this run (remove it at exit).
    public let isTemporary: Bool

    /// Prepares the folder for `policy`: `path`, or a fresh one under `temporaryDirectory`.
    public static func prepare(
        _ path: URL?, policy: SourcePolicy, temporaryDirectory: URL = FileManager.default.temporaryDirectory
    ) throws(ProxyCacheDirectoryError) -> ProxyCacheDirectory {
        let root: URL
        if let path {
            root = path.standardizedFileURL
            try claim(root)
        } else {
            root = try makeFresh(under: temporaryDirectory)
        }
        let name = "sources-" + fingerprint(of: policy)
        let entries = root.appendingPathComponent(name, isDirectory: true)
        // Folders of other address policies hold sources this policy may refuse.
        let siblings = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for sibling in siblings where sibling.hasPrefix("sources-") && sibling != name {
            try? FileManager.default.removeItem(at: root.appendingPathComponent(sibling))
        }
        guard mkdir(entries.path, 0o700) == 0 || errno == EEXIST else {
            throw ProxyCacheDirectoryError(path: entries.path, reason: "it cannot be created (\(String(cString: strerror(errno))))")
        }
        return ProxyCacheDirectory(root: root, entries: entries, isTemporary: path == nil)
    }

    /// The address rules of `policy` as a short stable name (not Swift's per-process `Hasher`).
    static func fingerprint(of policy: SourcePolicy) -> String {
        let kinds = policy.allowedNetworkKinds
        guard policy.allowsPrivateNetworks || !kinds.isEmpty || !policy.allowedAddresses.isEmpty || !policy.allowedEndpoints.isEmpty
        else {
            return "public"
        }
        let addresses = policy.allowedAddresses.map(\.description).sorted().joined(separator: ",")
        let endpoints = policy.allowedEndpoints.map { "\($0.address.urlHost):\($0.port)" }.sorted().joined(separator: ",")
        var text = "private=\(policy.allowsPrivateNetworks);\(addresses);\(endpoints)"
        // Only when a switch is on, so folders of policies without them keep their names.
        if !kinds.isEmpty {
            text += ";kinds=" + IPAddress.NetworkKind.allCases.filter(kinds.contains).map { "\($0)" }.joined(separator: ",")
        }
        return StableHash.hex(Array(StableHash.sha256(text.utf8).prefix(8)))
    }

    /// A new folder under `parent`, mode 0700, whose name nobody could have taken first.
    private static func makeFresh(under parent: URL) throws(ProxyCacheDirectoryError) -> URL {
        for _ in 0..<8 {
            let candidate = parent.appendingPathComponent("imago-serve-\(UUID().uuidString.lowercased())", isDirectory: true)
            if mkdir(candidate.path, 0o700) == 0 { return candidate }
            guard errno == EEXIST else {
                throw ProxyCacheDirectoryError(path: candidate.path, reason: "it cannot be created (\(String(cString: strerror(errno))))")
            }
        }
        throw ProxyCacheDirectoryError(path: parent.path, reason: "no fresh folder name could be taken in it")
    }

    /// Makes `folder` (0700, parents as needed) or checks that the one there is ours alone.
    private static func claim(_ folder: URL) throws(ProxyCacheDirectoryError) {
        var status = stat()
        if lstat(folder.path, &status) != 0 {
            guard errno == ENOENT else {
                throw ProxyCacheDirectoryError(path: folder.path, reason: "it cannot be read (\(String(cString: strerror(errno))))")
            }
            do {
                try FileManager.default.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw ProxyCacheDirectoryError(path: folder.path, reason: "its parent cannot be created (\(error.localizedDescription))")
            }
            guard mkdir(folder.path, 0o700) == 0 else {
                throw ProxyCacheDirectoryError(path: folder.path, reason: "it cannot be created (\(String(cString: strerror(errno))))")
            }
            return
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw ProxyCacheDirectoryError(path: folder.path, reason: "it is not a folder (a file or a symbolic link)")
        }
        guard status.st_uid == geteuid() else {
            throw ProxyCacheDirectoryError(
                path: folder.path, reason: "it belongs to user \(status.st_uid), not to this server's user \(geteuid())")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw ProxyCacheDirectoryError(
                path: folder.path,
                reason: "its mode \(String(status.st_mode & 0o777, radix: 8)) lets other users in; `chmod 700` it or choose another folder")
        }
    }
}

/// The cache folder cannot be used, and why.
public struct ProxyCacheDirectoryError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "the cache folder \(path) is refused: \(reason)" }
}
#endif
