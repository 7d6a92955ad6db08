#if os(Linux)
/// A variable of `imago serve`'s environment whose value does not parse: names the variable and
/// what it takes (and, for a secret, never the value).
package struct ServeEnvironmentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The variable, e.g. `IMGPROXY_TTL`.
    package var variable: String
    /// What it takes.
    package var message: String

    package var description: String { "\(variable) \(message)" }
}
#endif
