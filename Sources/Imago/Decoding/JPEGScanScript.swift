import Foundation

/// A progressive frame's components and the progression of its scans so far, for
/// ``JPEGScanSelector``: which coefficients each scan sends, whether the script is a clean
/// progression (each coefficient's first scan, then refinements one bit at a time, AC only after
/// the component's DC), and which scans a 1/8-scale decode reads.
struct JPEGScanScript {
    let width: Int
    let height: Int
    /// The component identifiers, in frame order.
    private let identifiers: [UInt8]
    /// Per component: whether its 1/8-scale inverse DCT is larger than 1x1, so it reads AC
    /// coefficients (libjpeg-turbo's jdmaster.c: a component subsampled by a power of two gets a
    /// larger transform instead of upsampling).
    private let readsAC: [Bool]
    /// Per component and coefficient (64 a component): the bit position the scans so far have
    /// sent it down to, -1 before its first scan (libjpeg's `coef_bits`).
    private var bits: [Int]

    /// Reads a `SOF2` body; nil for anything libjpeg-turbo's 8-bit progressive Huffman decoder
    /// would refuse or handle unusually (a height of 0 needs a DNL marker).
    init?(frameHeader body: UnsafeBufferPointer<UInt8>) {
        guard body.count >= 6 else { return nil }
        let precision = body[0]
        let height = Int(body[1]) << 8 | Int(body[2])
        let width = Int(body[3]) << 8 | Int(body[4])
        let count = Int(body[5])
        guard precision == 8, height > 0, width > 0, (1...4).contains(count), body.count == 6 + 3 * count else { return nil }
        var identifiers: [UInt8] = []
        var sampling: [(horizontal: Int, vertical: Int)] = []
        for component in 0..<count {
            let identifier = body[6 + 3 * component]
            let horizontal = Int(body[7 + 3 * component] >> 4)
            let vertical = Int(body[7 + 3 * component] & 0x0F)
            guard (1...4).contains(horizontal), (1...4).contains(vertical), !identifiers.contains(identifier) else { return nil }
            identifiers.append(identifier)
            sampling.append((horizontal, vertical))
        }
        let maximumHorizontal = sampling.map(\.horizontal).max() ?? 1
        let maximumVertical = sampling.map(\.vertical).max() ?? 1
        self.width = width
        self.height = height
        self.identifiers = identifiers
        self.readsAC = sampling.map {
            Self.inverseDCTSize(horizontal: $0.horizontal, vertical: $0.vertical, maximumHorizontal: maximumHorizontal, maximumVertical: maximumVertical) > 1
        }
        self.bits = Array(repeating: -1, count: 64 * count)
    }

    /// The side of a component's inverse DCT at 1/8, as libjpeg-turbo chooses it: doubled from 1
    /// while the component's sampling factor, times the size doubled, still divides the largest
    /// factor in both directions (and the size is under 8).
    static func inverseDCTSize(horizontal: Int, vertical: Int, maximumHorizontal: Int, maximumVertical: Int) -> Int {
        var size = 1
        while size < 8, maximumHorizontal % (horizontal * size * 2) == 0, maximumVertical % (vertical * size * 2) == 0 {
            size *= 2
        }
        return size
    }

    /// Whether every coefficient of every component has been sent in full.
    var isComplete: Bool { bits.allSatisfy { $0 == 0 } }

    /// Reads a scan header (`SOS` body) and records what the scan sends; whether a 1/8-scale decode
    /// reads it (a DC scan, or an AC scan of a component with a larger transform), or nil for a
    /// scan outside a clean progression.
    mutating func read(scanHeader body: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let count = body.first.map(Int.init), (1...4).contains(count), body.count == 4 + 2 * count else { return nil }
        var components: [Int] = []
        for slot in 0..<count {
            guard let component = identifiers.firstIndex(of: body[1 + 2 * slot]), !components.contains(component) else { return nil }
            components.append(component)
        }
        let start = Int(body[1 + 2 * count])
        let end = Int(body[2 + 2 * count])
        let high = Int(body[3 + 2 * count] >> 4)
        let low = Int(body[3 + 2 * count] & 0x0F)
        // libjpeg's rules (jdphuff.c): a DC scan sends only coefficient 0; an AC scan one
        // component; a refinement one bit, below the previous scan's.
        guard start <= end, end <= 63, low <= 13 else { return nil }
        guard start == 0 ? end == 0 : count == 1 else { return nil }
        guard high == 0 || low == high - 1 else { return nil }
        for component in components {
            let base = 64 * component
            // AC before the component's first DC scan: libjpeg warns.
            if start > 0, bits[base] < 0 { return nil }
            for coefficient in start...end {
                let sent = bits[base + coefficient]
                guard high == 0 ? sent == -1 : sent == high else { return nil }
                bits[base + coefficient] = low
            }
        }
        return start == 0 || components.contains { readsAC[$0] }
    }
}
