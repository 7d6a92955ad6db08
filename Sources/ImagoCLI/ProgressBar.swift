import Foundation
import Imago

/// A one-line progress bar on standard output, redrawn in place: done/total, bytes, rate, ETA,
/// failures and the latest preview. Lines printed through ``print(_:)`` appear above it. Without a
/// terminal (a pipe, a file, a CI log, or `NO_COLOR`), there is no bar: lines are printed plainly
/// and nothing else.
final class ProgressBar: @unchecked Sendable {
    // Every call takes `lock`: previews are noted from the loads' own tasks.
    private let lock = NSLock()
    private let total: Int
    private let isLive: Bool
    private let label: String
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private(set) var done = 0
    private(set) var failures = 0
    private(set) var bytes = 0
    private var drawn = false
    /// What the latest preview was of (`a.jpg, 2 scans`), shown at the end of the bar.
    private(set) var preview: String?

    /// A bar for `total` items; live only when `enabled` and the terminal allows it.
    init(total: Int, label: String = "", enabled: Bool = true) {
        self.total = total
        self.label = label
        isLive = enabled && Terminal.allowsControlCharacters
        start = clock.now
    }

    /// Whether the bar is drawn (a terminal that allows it).
    var isShown: Bool { isLive }

    /// Seconds since the bar was made.
    var elapsed: Double {
        let components = (clock.now - start).components
        return Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// Counts one finished item of `bytes` bytes and redraws.
    func advance(bytes: Int = 0, failed: Bool = false) {
        lock.withLock {
            done += 1
            self.bytes += bytes
            if failed { failures += 1 }
            drawLocked()
        }
    }

    /// Notes that a preview of `url` showing `scans` scans arrived, and redraws.
    func notePreview(of url: URL, scans: Int) {
        lock.withLock {
            preview = "\(url.lastPathComponent.isEmpty ? url.host ?? "" : url.lastPathComponent), \(scans) scan\(scans == 1 ? "" : "s")"
            drawLocked()
        }
    }

    /// Prints `line` above the bar (or plainly, without a terminal).
    func print(_ line: String) {
        lock.withLock {
            if isLive && drawn {
                Terminal.write("\r\u{1B}[K" + line + "\n")
                drawLocked()
            } else {
                Swift.print(line)
            }
        }
    }

    /// Draws the bar in place.
    func draw() {
        lock.withLock { drawLocked() }
    }

    private func drawLocked() {
        guard isLive else { return }
        drawn = true
        Terminal.write("\r" + Self.fitted(line(width: Terminal.columns), to: Terminal.columns) + "\u{1B}[K")
    }

    /// Removes the bar, leaving the cursor at the start of an empty line.
    func finish() {
        lock.withLock {
            guard isLive, drawn else { return }
            Terminal.write("\r\u{1B}[K")
            drawn = false
        }
    }

    /// The bar's text for a terminal `width` columns wide.
    func line(width: Int) -> String {
        let seconds = elapsed
        let rate = seconds > 0 ? Double(bytes) / seconds : 0
        var figures = "\(done)/\(total)  \(ByteCount.format(bytes))  \(ByteCount.format(Int(rate)))/s"
        if done > 0, done < total, seconds > 0 {
            let remaining = seconds / Double(done) * Double(total - done)
            figures += "  ETA \(Self.duration(remaining))"
        }
        if failures > 0 { figures += "  \(failures) failed" }
        if let preview, done < total { figures += "  preview: \(preview)" }
        let prefix = label.isEmpty ? "" : label + " "
        let barWidth = max(10, min(30, width - prefix.count - figures.count - 4))
        let filled = total == 0 ? barWidth : barWidth * min(done, total) / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled)
        return "\(prefix)[\(bar)] \(figures)"
    }

    /// `text` cut to fit `width` columns less one, so the terminal never wraps it onto a new line.
    static func fitted(_ text: String, to width: Int) -> String {
        text.count < width ? text : String(text.prefix(max(width - 1, 0)))
    }

    /// "42s", "3m05s", "1h02m".
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds < 360_000 else { return "--" }
        let total = Int(seconds.rounded())
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m" + String(format: "%02ds", total % 60) }
        return "\(total / 3600)h" + String(format: "%02dm", total % 3600 / 60)
    }
}
