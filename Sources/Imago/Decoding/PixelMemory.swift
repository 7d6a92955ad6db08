#if os(Linux)
import Glibc
#endif

/// Advice to the kernel about a large pixel buffer that is about to be written from start to end.
///
/// A fresh 48 MB buffer (a 12-megapixel RGBA decode) costs about 11,700 first-touch page faults
/// of 4 KB each, as much CPU as the decode itself on a virtual machine. Asking for transparent
/// huge pages over the buffer's 2 MB-aligned interior turns those into about 24 faults of 2 MB
/// (the kernel still zeroes the memory, but traps once per 2 MB instead of once per 4 KB). Only
/// where the system allows it (`/sys/kernel/mm/transparent_hugepage/enabled` is `madvise` or
/// `always`); elsewhere the advice is ignored and nothing changes. Small buffers are left alone:
/// a huge page only pays for itself when all of it is written.
enum PixelMemory {
    /// The size of a transparent huge page on x86-64 and most arm64 kernels.
    static let hugePageSize = 2 << 20
    /// Buffers smaller than this are not advised (fewer than three whole huge pages inside).
    static let minimumAdvisedSize = 8 << 20

    /// Advises huge pages for the whole 2 MB pages inside `count` bytes at `base`.
    static func adviseSequentialWrite(_ base: UnsafeMutableRawPointer, count: Int) {
        #if os(Linux)
        guard count >= minimumAdvisedSize else { return }
        let mask = UInt(hugePageSize - 1)
        let address = UInt(bitPattern: base)
        let (end, overflow) = address.addingReportingOverflow(UInt(count))
        guard !overflow else { return }
        let first = (address + mask) & ~mask
        let last = end & ~mask
        guard last > first, let start = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(start, Int(last - first), MADV_HUGEPAGE)
        #endif
    }
}
