import Foundation
import Imago

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Benchmark 2: 50 KB entries written and read through `DiskCache`, against plain POSIX calls on the
/// same payloads in a sibling directory, and python-diskcache when python can run it.
enum DiskCacheBenchmark {
    static let payloadSize = 50 * 1024
    static let entries = 500

    static func run(repetitions: Int, directory: URL, python: PythonWorker?, quick: Bool = false) throws -> [Figure] {
        let entries = quick ? 50 : Self.entries
        var random = SystemRandomNumberGenerator()
        let payload = Data((0..<payloadSize).map { _ in UInt8.random(in: 0...255, using: &random) })
        let cacheDirectory = directory.appendingPathComponent("imago-disk")
        let posixDirectory = directory.appendingPathComponent("posix")
        let pythonDirectory = directory.appendingPathComponent("python-diskcache")
        let payloadPath = directory.appendingPathComponent("payload.bin")
        try payload.write(to: payloadPath)
        try FileManager.default.createDirectory(
            at: posixDirectory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: posixDirectory.appendingPathComponent("entries"), withIntermediateDirectories: true)
        let cache = try DiskCache(
            directory: cacheDirectory, configuration: .init(sizeLimit: 1 << 30))

        // Every repetition writes a fresh set of keys, then reads them back.
        func keys(_ round: Int) -> [CacheKey] {
            (0..<entries).map { CacheKey("https://images.example.com/\(round)/\($0).jpg") }
        }
        func posixNames(_ round: Int) -> [String] {
            (0..<entries).map { String(format: "%016llx%016llx", UInt64(round), UInt64($0)) }
        }
        let entriesPath = posixDirectory.appendingPathComponent("entries").path
        let temporaryPath = posixDirectory.appendingPathComponent("tmp").path

        var writeRound = 0
        var readRound = 0
        let ourWrites: () throws -> Double = {
            let keys = keys(writeRound)
            let seconds = try time { for key in keys { try cache.store(payload, forKey: key) } }
            return Double(entries) / seconds
        }
        let posixWrites: () throws -> Double = {
            let names = posixNames(writeRound + 1000)
            let seconds = time {
                payload.withUnsafeBytes { bytes in
                    for name in names {
                        let temporary = temporaryPath + "/" + name
                        let fd = open(temporary, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o644)
                        precondition(fd >= 0, "open failed")
                        precondition(write(fd, bytes.baseAddress, bytes.count) == bytes.count, "short write")
                        close(fd)
                        precondition(rename(temporary, entriesPath + "/" + name) == 0, "rename failed")
                    }
                }
            }
            return Double(entries) / seconds
        }
        let pythonWrites: () throws -> Double = {
            let seconds = try python!.send("dcwrite \(pythonDirectory.path) \(entries) \(payloadPath.path) \(writeRound)")[0]
            return Double(entries) / seconds
        }
        let ourReads: () throws -> Double = {
            let keys = keys(readRound)
            var bytes = 0
            let seconds = time { for key in keys { bytes += cache.data(forKey: key)?.count ?? 0 } }
            precondition(bytes == entries * payloadSize, "DiskCache read missed")
            return Double(entries) / seconds
        }
        let posixReads: () throws -> Double = {
            let names = posixNames(readRound + 1000)
            var bytes = 0
            let seconds = time {
                for name in names {
                    let fd = open(entriesPath + "/" + name, O_RDONLY | O_CLOEXEC)
                    precondition(fd >= 0, "open failed")
                    var status = stat()
                    fstat(fd, &status)
                    let size = Int(status.st_size)
                    // Into a fresh buffer that is not zero-filled first, returned as Data without a
                    // copy: exactly what DiskCache does with the bytes, minus its checks.
                    let base = malloc(max(size, 1))!
                    let read = pread(fd, base, size, 0)
                    close(fd)
                    let data = Data(bytesNoCopy: base, count: max(read, 0), deallocator: .free)
                    bytes += data.count
                }
            }
            precondition(bytes == entries * payloadSize, "POSIX read missed")
            return Double(entries) / seconds
        }
        let pythonReads: () throws -> Double = {
            let seconds = try python!.send("dcread \(pythonDirectory.path) \(entries) \(readRound)")[0]
            return Double(entries) / seconds
        }

        let withPython = python?.hasDiskCache ?? false
        // Each repetition: a round of writes by every contender, then a round of reads of what was written.
        var writeSamples = [[Double]](repeating: [], count: 3)
        var readSamples = [[Double]](repeating: [], count: 3)
        let writers = withPython ? [ourWrites, posixWrites, pythonWrites] : [ourWrites, posixWrites]
        let readers = withPython ? [ourReads, posixReads, pythonReads] : [ourReads, posixReads]
        for rep in 0...repetitions {  // repetition 0 warms up and is dropped
            writeRound = rep
            readRound = rep
            var written = [Double](repeating: 0, count: writers.count)
            for offset in 0..<writers.count {
                let index = (rep + offset) % writers.count
                written[index] = try writers[index]()
            }
            var read = [Double](repeating: 0, count: readers.count)
            for offset in 0..<readers.count {
                let index = (rep + offset) % readers.count
                read[index] = try readers[index]()
            }
            guard rep > 0 else { continue }
            for index in writers.indices {
                writeSamples[index].append(written[index])
                readSamples[index].append(read[index])
            }
        }
        let w = writeSamples.map(median)
        let r = readSamples.map(median)
        return [
            Figure(
                benchmark: "disk", name: "DiskCache.store, 50 KB", unit: "ops/s", higherIsBetter: true,
                ours: w[0], baselineName: "POSIX open/write/close + rename", baseline: w[1],
                extra: withPython ? [("python-diskcache 5.6.3 set", w[2])] : [], repetitions: repetitions),
            Figure(
                benchmark: "disk", name: "DiskCache.data(forKey:), 50 KB", unit: "ops/s", higherIsBetter: true,
                ours: r[0], baselineName: "POSIX open/fstat/pread/close", baseline: r[1],
                extra: withPython ? [("python-diskcache 5.6.3 get", r[2])] : [], repetitions: repetitions),
        ]
    }
}
