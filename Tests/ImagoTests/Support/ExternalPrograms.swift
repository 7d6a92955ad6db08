import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Programs from Debian packages that some tests here drive (nginx), with the same rule as
/// ImagoServerTests' `ExternalTools`: where one is missing the test is skipped, unless
/// IMAGO_REQUIRE_EXTERNAL=1 or CI=true (`.ci/run` installs them), where it fails; under a
/// sanitizer (ASAN_OPTIONS or TSAN_OPTIONS set) such tests do not run, since the plain `test`
/// stage already ran them.
enum ExternalPrograms {
    static func find(_ name: String) -> String? {
        ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/sbin", "/bin"]
            .map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let nginx = find("nginx")
    static let environment = ProcessInfo.processInfo.environment
    static let sanitized = environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
    static let required = !sanitized && (environment["IMAGO_REQUIRE_EXTERNAL"] == "1" || environment["CI"] == "true")
    static var runsNginx: Bool { !sanitized && (nginx != nil || required) }

    /// A port on 127.0.0.1 that nothing listens on right now (the system's choice for a socket
    /// bound to port 0, closed again).
    static func freePort() throws -> Int {
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
