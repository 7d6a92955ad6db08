#if os(Linux)
import Foundation
import Glibc

/// What a process holds, read from /proc: resident memory, open descriptors, threads, and
/// the connections a server in it holds on its port. `pid` `nil` is this process.
enum ProcessProbe {
    static func directory(_ pid: Int32?) -> String { pid.map { "/proc/\($0)" } ?? "/proc/self" }

    /// Resident memory (VmRSS), in bytes.
    static func residentBytes(pid: Int32? = nil) -> Int? {
        guard let status = read("\(directory(pid))/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
            return kilobytes * 1024
        }
        return nil
    }

    /// Open file descriptors.
    static func descriptorCount(pid: Int32? = nil) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "\(directory(pid))/fd").count) ?? 0
    }

    /// Descriptors that are sockets (client and source connections, listeners): the count a
    /// server's connections move, without the pipes a sanitizer's symbolizer opens for itself.
    static func socketCount(pid: Int32? = nil) -> Int {
        let folder = "\(directory(pid))/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return entries.filter { entry in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(entry)")) ?? "").hasPrefix("socket:")
        }.count
    }

    /// Threads.
    static func threadCount(pid: Int32? = nil) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "\(directory(pid))/task").count) ?? 0
    }

    /// Descriptors of the process that are connected sockets whose local port is `port`: the
    /// connections a server listening on `port` holds (its clients' ends have other local ports).
    static func serverConnections(port: Int, pid: Int32? = nil) -> Int {
        var inodes = Set<String>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = read(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                guard fields.count >= 10, let colon = fields[1].lastIndex(of: ":"),
                    let local = Int(fields[1][fields[1].index(after: colon)...], radix: 16), local == port, fields[3] != "0A"
                else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        let folder = "\(directory(pid))/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.count { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(name)"),
                target.hasPrefix("socket:[")
            else { return false }
            return inodes.contains(String(target.dropFirst(8).dropLast()))
        }
    }

    /// The whole of a /proc file. (Foundation's `String(contentsOfFile:)` stops after the first
    /// page of a file whose size the kernel reports as 0, as /proc's are.)
    static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk.prefix(count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Raises the soft limit on open files to at least `count` (within the hard limit); returns
    /// the soft limit in force.
    @discardableResult
    static func allowOpenFiles(_ count: Int) -> Int {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        if limit.rlim_cur < rlim_t(count) {
            limit.rlim_cur = min(limit.rlim_max, rlim_t(count))
            setrlimit(resource, &limit)
            getrlimit(resource, &limit)
        }
        return Int(clamping: limit.rlim_cur)
    }
}
#endif
