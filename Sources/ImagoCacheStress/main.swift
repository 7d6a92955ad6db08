// `imago-cache-stress`: a process that hammers one DiskCache directory until it is killed, for the
// crash-safety tests (Tests/ImagoTests/CrashSafety). Every key has one payload, derived from the key
// alone (`StressPayload`, ImagoTestSupport), so any read, in this process or in the one that reopens the cache after
// a SIGKILL, can be checked byte for byte.
//
//     imago-cache-stress DIRECTORY SEED [KEYS [PAUSE]]
//
// PAUSE (microseconds, default 0) is slept after every operation, so the stress shares a busy
// machine with the rest of the test suite instead of starving it.
//
// Prints "ready" once the cache is open, then stores, reads, removes and sweeps at random (seeded)
// forever. A read that returns bytes other than the key's payload prints the key to standard error
// and exits with status 3. Depends on Imago and ImagoTestSupport (the payloads).
import Foundation
import Imago
import ImagoTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A background load: yield the CPU to whatever else runs (the rest of the test suite on a busy
// machine), so the stress never starves timing-bounded tests.
_ = nice(15)

// Gone with the process that started it: a test run that crashes must not leave it hammering the
// disk and a core for ever. When the parent dies, this process is handed to another (its parent
// id changes); a thread that looks five times a second then ends it.
let parent = getppid()
Thread.detachNewThread {
    while getppid() == parent { usleep(200_000) }
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let seed = UInt64(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: imago-cache-stress DIRECTORY SEED [KEYS]\n".utf8))
    exit(2)
}
let keyCount = arguments.count >= 4 ? max(Int(arguments[3]) ?? 48, 1) : 48
let pause = arguments.count >= 5 ? UInt32(clamping: max(Int(arguments[4]) ?? 0, 0)) : 0
let directory = URL(fileURLWithPath: arguments[1], isDirectory: true)

let cache: DiskCache
do {
    // Small enough that eviction (and its rescans) runs all the time.
    cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 768 * 1024))
} catch {
    FileHandle.standardError.write(Data("imago-cache-stress: \(error)\n".utf8))
    exit(1)
}
FileHandle.standardOutput.write(Data("ready\n".utf8))

var random = SplitMix(seed: seed)
while true {
    let index = Int(random.next() % UInt64(keyCount))
    let key = StressPayload.key(index)
    switch random.next() % 100 {
    case 0..<50:
        try? cache.store(StressPayload.bytes(for: index), forKey: key)
    case 50..<92:
        if let data = cache.data(forKey: key), data != StressPayload.bytes(for: index) {
            FileHandle.standardError.write(Data("imago-cache-stress: wrong bytes for \(key)\n".utf8))
            exit(3)
        }
    case 92..<98:
        cache.remove(forKey: key)
    default:
        cache.sweep()
    }
    if pause > 0 { usleep(pause) }
}
