import Foundation
import Imago

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Benchmark: a large disk cache at start-up. Opening a cache that holds 100,000 entries and serving
/// its first hit (target: under 300 ms), and a sweep over those 100,000 entries (target: under 2 s),
/// each beside the bare POSIX work a simple implementation would do: list every name, and open and
/// read the start of every file.
enum CacheStartupBenchmark {
    static let entryCount = 100_000
    static let payloadSize = 2 * 1024

    static func run(repetitions: Int, directory: URL, quick: Bool) throws -> [Figure] {
        let count = quick ? 2_000 : entryCount
        let cacheDirectory = directory.appendingPathComponent("imago-startup")
        let configuration = DiskCache.Configuration(sizeLimit: 1 << 40)
        var random = SystemRandomNumberGenerator()
        let payload = Data((0..<payloadSize).map { _ in UInt8.random(in: 0...255, using: &random) })
        func key(_ index: Int) -> CacheKey { CacheKey("https://images.example.com/startup/\(index).jpg") }
        do {
            let filler = try DiskCache(directory: cacheDirectory, configuration: configuration)
            for index in 0..<count { try filler.store(payload, forKey: key(index)) }
        }
        let entriesPath = cacheDirectory.appendingPathComponent("entries").path

        var extraStore: [Double] = []
        let openAndFirstHit: () throws -> Double = {
            let wanted = key(Int.random(in: 0..<count))
            var found = false
            let seconds = try time {
                let cache = try DiskCache(directory: cacheDirectory, configuration: configuration)
                found = cache.data(forKey: wanted) != nil
                // Not timed: the first store after opening, which loads the index with one scan.
                let start = ContinuousClock.now
                try cache.store(payload, forKey: wanted)
                extraStore.append((ContinuousClock.now - start).seconds * 1e3)
            }
            precondition(found, "the first hit missed")
            return (seconds - extraStore.last! / 1e3) * 1e3
        }
        let listAndRead: () throws -> Double = {
            let seconds = time {
                var names = 0
                if let directory = opendir(entriesPath) {
                    while readdir(directory) != nil { names += 1 }
                    closedir(directory)
                }
                precondition(names >= count, "the listing missed entries")
                blackHole(readStart(ofFirstEntryIn: entriesPath, bytes: payloadSize + 512))
            }
            return seconds * 1e3
        }
        let sweep: () throws -> Double = {
            let cache = try DiskCache(directory: cacheDirectory, configuration: configuration)
            var removed = 0
            let seconds = time { removed = cache.sweep() }
            precondition(removed == 0, "the sweep removed live entries")
            return seconds * 1e3
        }
        let bareWalk: () throws -> Double = {
            let seconds = time {
                var names: [String] = []
                if let directory = opendir(entriesPath) {
                    let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
                    while let entry = readdir(directory) {
                        let name = String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
                        if name.utf8.first != 0x2E { names.append(name) }
                    }
                    closedir(directory)
                }
                var buffer = [UInt8](repeating: 0, count: 512)
                var read = 0
                for name in names {
                    let fd = open(entriesPath + "/" + name, O_RDONLY | O_CLOEXEC)
                    guard fd >= 0 else { continue }
                    read += buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 512, 0) }
                    close(fd)
                }
                blackHole(read)
            }
            return seconds * 1e3
        }
        _ = try (openAndFirstHit(), listAndRead(), sweep(), bareWalk())  // warm the page cache
        extraStore = []
        let m = try Interleaved(repetitions: repetitions).run([openAndFirstHit, listAndRead, sweep, bareWalk])
        let thousands = "\(count / 1000)k"
        return [
            Figure(
                benchmark: "startup", name: "DiskCache open + first hit, \(thousands) entries", unit: "ms",
                higherIsBetter: false, ours: m[0], baselineName: "POSIX readdir of every name + read of one entry",
                baseline: m[1],
                extra: [("target", 300), ("first store after open (loads the index)", median(extraStore))],
                repetitions: repetitions),
            Figure(
                benchmark: "startup", name: "DiskCache.sweep(), \(thousands) entries", unit: "ms", higherIsBetter: false,
                ours: m[2], baselineName: "POSIX readdir + open/pread 512 B/close of every entry", baseline: m[3],
                extra: [("target", 2000)], repetitions: repetitions),
        ]
    }

    /// Reads up to `bytes` of the first entry file in `path`, as a bare hit would.
    private static func readStart(ofFirstEntryIn path: String, bytes: Int) -> Int {
        guard let directory = opendir(path) else { return 0 }
        defer { closedir(directory) }
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(directory) {
            let name = String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
            guard name.utf8.first != 0x2E else { continue }
            let fd = open(path + "/" + name, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return 0 }
            defer { close(fd) }
            var status = stat()
            fstat(fd, &status)
            var buffer = [UInt8](repeating: 0, count: min(bytes, Int(status.st_size)))
            return buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        }
        return 0
    }
}
