import Foundation

/// A one-line progress bar on standard error, redrawn in place; only on a terminal.
final class ProgressBar: @unchecked Sendable {
    // Only touched from the command's own task, one call at a time.
    private let total: Int
    private var done = 0
    private let width = 30

    init(total: Int) { self.total = total }

    /// Whether standard error is a terminal (no bar in pipes, files or CI logs).
    static var isTerminal: Bool { isatty(FileHandle.standardError.fileDescriptor) == 1 }

    func advance() { done += 1 }

    func draw() {
        let filled = total == 0 ? width : width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        write("\r[\(bar)] \(done)/\(total)")
    }

    func clear() { write("\r\u{1B}[2K") }

    func finish() { clear() }

    private func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
