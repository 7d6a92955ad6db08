// Like `CommandRunner`, for the platforms where a test can start a child process.
#if os(macOS) || os(Linux) || os(Windows)
import Foundation

/// An executable product of the package under test, found beside the test bundle: for tests that
/// run the built command line (`imago`) as a user would.
///
/// SwiftPM builds every product of a package into one directory (`.build/<triple>/debug`), where
/// the test bundle and the executables sit side by side, and `swift test` builds them all. The
/// environment variable `IMAGO_EXECUTABLE_DIRECTORY` overrides the search.
public enum BuiltExecutable {
    /// The executable `name` built beside the test bundle, or nil when there is none.
    public static func url(named name: String) -> URL? {
        let fileManager = FileManager.default
        var starts: [URL] = []
        if let directory = ProcessInfo.processInfo.environment["IMAGO_EXECUTABLE_DIRECTORY"], !directory.isEmpty {
            starts.append(URL(fileURLWithPath: directory, isDirectory: true))
        }
        starts += [
            Bundle.main.bundleURL,
            URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath(),
            Bundle.main.executableURL,
        ].compactMap { $0?.standardizedFileURL }
        starts += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        // Walk up a few levels: on Linux the test bundle is a file in the build directory; on macOS
        // the runner sits inside `….xctest/Contents/MacOS`.
        for start in starts {
            var directory = start.hasDirectoryPath ? start : start.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    fileManager.isExecutableFile(atPath: candidate.path)
                {
                    return candidate
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }
}
#endif
