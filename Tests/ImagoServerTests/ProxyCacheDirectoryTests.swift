#if os(Linux)
import Foundation
import Testing

@testable import ImagoServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `imago serve`'s cache folder: made fresh with mode 0700, refused when others may enter it, and
/// emptied of sources fetched under another address policy.
@Suite struct ProxyCacheDirectoryTests {
    /// A scratch parent folder for one test.
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cachedir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func mode(_ url: URL) -> mode_t {
        var status = stat()
        return lstat(url.path, &status) == 0 ? status.st_mode & 0o777 : 0
    }

    @Test func aFreshFolderIsPrivateAndNew() throws {
        let parent = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: parent) }
        let first = try ProxyCacheDirectory.prepare(nil, policy: SourcePolicy(), temporaryDirectory: parent)
        let second = try ProxyCacheDirectory.prepare(nil, policy: SourcePolicy(), temporaryDirectory: parent)
        #expect(first.root != second.root)
        #expect(first.isTemporary)
        #expect(Self.mode(first.root) == 0o700)
        #expect(Self.mode(first.entries) == 0o700)
        #expect(first.entries.deletingLastPathComponent().standardizedFileURL == first.root.standardizedFileURL)
    }

    @Test func aGivenFolderIsMadePrivateWhenMissing() throws {
        let parent = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: parent) }
        let path = parent.appendingPathComponent("a/b/cache")
        let folder = try ProxyCacheDirectory.prepare(path, policy: SourcePolicy())
        #expect(!folder.isTemporary)
        #expect(Self.mode(path) == 0o700)
    }

    @Test(arguments: [0o777, 0o755, 0o750, 0o701])
    func refusesAFolderOthersMayEnter(mode: Int) throws {
        let parent = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: parent) }
        let path = parent.appendingPathComponent("planted")
        #expect(mkdir(path.path, 0o700) == 0)
        #expect(chmod(path.path, mode_t(mode)) == 0)
        let error = #expect(throws: ProxyCacheDirectoryError.self) { try ProxyCacheDirectory.prepare(path, policy: SourcePolicy()) }
        #expect(error?.description.contains("lets other users in") == true, "\(String(describing: error))")
        // The operator's fix is accepted.
        #expect(chmod(path.path, 0o700) == 0)
        _ = try ProxyCacheDirectory.prepare(path, policy: SourcePolicy())
    }

    @Test func refusesAFileOrASymbolicLink() throws {
        let parent = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: parent) }
        let file = parent.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let target = parent.appendingPathComponent("target")
        #expect(mkdir(target.path, 0o700) == 0)
        let link = parent.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        for path in [file, link] {
            let error = #expect(throws: ProxyCacheDirectoryError.self) { try ProxyCacheDirectory.prepare(path, policy: SourcePolicy()) }
            #expect(error?.description.contains("not a folder") == true, "\(String(describing: error))")
        }
    }

    @Test func refusesAFolderOfAnotherUser() throws {
        let parent = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: parent) }
        let path: URL
        if geteuid() == 0 {
            // As root: a private folder given to another user.
            path = parent.appendingPathComponent("theirs")
            #expect(mkdir(path.path, 0o700) == 0)
            #expect(chown(path.path, 4242, 4242) == 0)
        } else {
            // As anyone else: root's home folder, 0700 and root's on Debian.
            path = URL(fileURLWithPath: "/root")
        }
        let error = #expect(throws: ProxyCacheDirectoryError.self) { try ProxyCacheDirectory.prepare(path, policy: SourcePolicy()) }
        #expect(error?.description.contains("belongs to user") == true, "\(String(describing: error))")
    }

    @Test func sourcesOfAnotherAddressPolicyAreRemoved() throws {
        let parent = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: parent) }
        let root = parent.appendingPathComponent("cache")
        let open = try ProxyCacheDirectory.prepare(root, policy: SourcePolicy(allowsPrivateNetworks: true))
        let planted = open.entries.appendingPathComponent("entry")
        try Data("fetched from 10.0.0.1".utf8).write(to: planted)
        // Same policy again: kept.
        #expect(try ProxyCacheDirectory.prepare(root, policy: SourcePolicy(allowsPrivateNetworks: true)).entries == open.entries)
        #expect(FileManager.default.fileExists(atPath: planted.path))
        // Public only: another folder, and the private sources are gone.
        let strict = try ProxyCacheDirectory.prepare(root, policy: SourcePolicy())
        #expect(strict.entries != open.entries)
        #expect(!FileManager.default.fileExists(atPath: open.entries.path))
        // An allowed address is a policy of its own too.
        let one = try ProxyCacheDirectory.prepare(root, policy: SourcePolicy(allowedAddresses: [.v4(10, 0, 0, 1)]))
        #expect(one.entries != strict.entries)
        #expect(!FileManager.default.fileExists(atPath: strict.entries.path))
    }
}
#endif
