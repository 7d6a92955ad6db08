import Testing

/// The `imago` command line, run as the built executable in a child process against a loopback
/// server (`swift test --filter CLITests`).
@Suite struct CLITests {}
