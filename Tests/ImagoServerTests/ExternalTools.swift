import Foundation

/// Programs from Debian packages that some tests drive (chromium, nginx). Where one is missing the
/// test is skipped, unless IMAGO_REQUIRE_EXTERNAL=1 or CI=true (`.ci/run` installs them), where it
/// fails. Under a sanitizer (ASAN_OPTIONS or TSAN_OPTIONS set, as `.ci/run`'s tsan and asan stages
/// do) these tests do not run: they test the product with other programs, not memory safety, and
/// the plain `test` stage already ran them.
enum ExternalTools {
    static func find(_ names: [String]) -> String? {
        for name in names {
            for directory in ["/usr/bin", "/usr/sbin", "/usr/local/bin", "/bin", "/sbin"] {
                let path = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
        }
        return nil
    }

    static let chromium = find(["chromium", "chromium-browser", "google-chrome"])
    static let nginx = find(["nginx"])
    static let environment = ProcessInfo.processInfo.environment
    static let sanitized = environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
    static let required = !sanitized && (environment["IMAGO_REQUIRE_EXTERNAL"] == "1" || environment["CI"] == "true")
    static var runsChromium: Bool { !sanitized && (chromium != nil || required) }
    static var runsNginx: Bool { !sanitized && (nginx != nil || required) }

    /// Where tests leave files for people to look at (screenshots): IMAGO_TEST_OUTPUT, else
    /// `.build/test-output` of this checkout.
    static var outputDirectory: URL {
        if let path = ProcessInfo.processInfo.environment["IMAGO_TEST_OUTPUT"] {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/test-output", isDirectory: true)
    }
}
