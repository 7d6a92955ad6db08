#if os(Linux)
/// Why a processing path was refused before any work: a stable ``code`` for clients and a
/// ``message`` that says what was wrong and how to write it.
public struct ProcessingPathError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable, machine-readable: `bad_options`, `bad_source`, `bad_path`, `too_large`.
    public var code: String
    /// What was wrong, for people.
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    static func badOptions(_ message: String) -> Self { Self(code: "bad_options", message: message) }
    static func badSource(_ message: String) -> Self { Self(code: "bad_source", message: message) }
    static func badPath(_ message: String) -> Self { Self(code: "bad_path", message: message) }
}
#endif
