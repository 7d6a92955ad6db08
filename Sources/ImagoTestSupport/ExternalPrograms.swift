// Tests that drive other programs run where test suites run (Linux, macOS).
#if os(macOS) || os(Linux)
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Programs from Debian packages that some tests drive (chromium, nginx, strace, djxl), and the one rule
/// for when those tests run: where a program is missing the test is skipped, unless
/// `IMAGO_REQUIRE_EXTERNAL=1` or `CI=true` (`.ci/run` installs them), where it fails. Under a
/// sanitizer (`ASAN_OPTIONS` or `TSAN_OPTIONS` set, as `.ci/run`'s tsan and asan stages do) such
/// tests do not run: they test the product with other programs, not memory safety, and the plain
/// `test` stage already ran them.
///
/// ```swift
/// @Test(.enabled(if: ExternalPrograms.runs(ExternalPrograms.nginx)))
/// func behindNginx() throws {
///     let nginx = try #require(ExternalPrograms.nginx, "install Debian's nginx")
///     …
/// }
/// ```
public enum ExternalPrograms {
    /// The first of `names` found as an executable in the usual system folders, or nil.
    public static func find(_ names: String...) -> String? {
        for name in names {
            for directory in ["/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/bin", "/sbin"] {
                let path = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
        }
        return nil
    }

    /// Debian's `chromium` (or a Chrome under another name).
    public static let chromium = find("chromium", "chromium-browser", "google-chrome")
    /// Debian's `nginx`.
    public static let nginx = find("nginx")
    /// `djxl` of Debian's libjxl-tools: the JPEG XL reference decodings.
    public static let djxl = find("djxl")

    /// The test venv's Python (`IMAGO_TEST_VENV`, else `.build/test-venv` of this checkout, which
    /// `Scripts/run test` and `.ci/run` make with `Scripts/packages.sh`'s PyPI packages), when it
    /// has moto's standalone S3 server.
    public static let testVenvPython: String? = {
        let python = testVenv + "/bin/python"
        guard FileManager.default.isExecutableFile(atPath: testVenv + "/bin/moto_server") else { return nil }
        return FileManager.default.isExecutableFile(atPath: python) ? python : nil
    }()

    /// The test venv's Python when it has pyvips (with pyvips-binary's libvips 8.18 and
    /// libultrahdr): the gain-map tests read Imago's output back through libvips with it.
    public static let testVenvPyvips: String? = {
        let python = testVenv + "/bin/python"
        let lib = testVenv + "/lib"
        guard FileManager.default.isExecutableFile(atPath: python),
            let versions = try? FileManager.default.contentsOfDirectory(atPath: lib),
            versions.contains(where: { FileManager.default.fileExists(atPath: "\(lib)/\($0)/site-packages/pyvips/__init__.py") })
        else { return nil }
        return python
    }()

    /// The test venv's folder: `IMAGO_TEST_VENV`, else `.build/test-venv` of this checkout.
    static let testVenv: String =
        ProcessInfo.processInfo.environment["IMAGO_TEST_VENV"]
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/test-venv").path

    /// Whether this process runs under AddressSanitizer or ThreadSanitizer.
    public static let sanitized: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
    }()

    /// Whether a missing program fails its test instead of skipping it (`IMAGO_REQUIRE_EXTERNAL=1`
    /// or `CI=true`, and no sanitizer).
    public static let required: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return !sanitized && (environment["IMAGO_REQUIRE_EXTERNAL"] == "1" || environment["CI"] == "true")
    }()

    /// Whether a test of `program` (a ``find(_:)`` result) runs: no sanitizer, and the program is
    /// there or required (then its `#require` fails the test).
    public static func runs(_ program: String?) -> Bool { !sanitized && (program != nil || required) }

    /// Whether the tests driving ``chromium`` run.
    public static var runsChromium: Bool { runs(chromium) }
    /// Whether the tests driving ``nginx`` run.
    public static var runsNginx: Bool { runs(nginx) }

    /// Where tests leave files for people to look at (screenshots): `IMAGO_TEST_OUTPUT`, else
    /// `.build/test-output` of this checkout.
    public static var outputDirectory: URL {
        if let path = ProcessInfo.processInfo.environment["IMAGO_TEST_OUTPUT"] {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        // Sources/ImagoTestSupport/ExternalPrograms.swift: three levels up is the checkout.
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/test-output", isDirectory: true)
    }

    /// A port on 127.0.0.1 that nothing listens on right now (the system's choice for a socket
    /// bound to port 0, closed again), for an external program to listen on.
    public static func freePort() throws -> Int {
        #if canImport(Glibc)
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
#endif
