#if os(Linux)
import Glibc

/// Gives the memory a test freed back to the system (glibc's `malloc_trim`, found at run time:
/// the Glibc module does not import malloc.h). glibc keeps freed blocks of a few MiB in its
/// arenas, where they stay resident; a suite beside the test that bounds this process's
/// resident memory (the network soak) would count them as its own growth.
enum MemoryTrim {
    static func now() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
}
#endif
