import ArgumentParser

/// A failure a command reports itself: a message that names the file or URL and says what to do,
/// and the exit status stated in `--help`.
struct CLIError: Error, CustomStringConvertible {
    let message: String
    let status: Int32

    /// A problem with what the user asked for (a missing file, a question that cannot be asked):
    /// exit status 2, as for any usage error.
    static func usage(_ message: String) -> CLIError { CLIError(message: message, status: ImagoCommand.usageErrorStatus) }

    var description: String { message }
}
