import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What standard output and input are connected to, and so what the commands may print: a live
/// progress bar and control characters only on an interactive terminal without `NO_COLOR`.
enum Terminal {
    /// Whether standard output is a terminal that may receive control characters: it is a
    /// terminal, `NO_COLOR` is not set (https://no-color.org: any value, even empty, counts) and
    /// `TERM` is not `dumb`.
    static var allowsControlCharacters: Bool {
        let environment = ProcessInfo.processInfo.environment
        return isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }

    /// Whether standard input is a terminal someone can answer a question on.
    static var hasInteractiveInput: Bool { isatty(STDIN_FILENO) == 1 }

    /// Columns of the terminal on standard output; 80 when it cannot be asked.
    static var columns: Int {
        var size = winsize()
        let status = withUnsafeMutablePointer(to: &size) { ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), $0) }
        if status == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// Writes `text` to standard output at once (no buffering between it and a redrawn bar).
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `text` and a newline to standard error.
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
