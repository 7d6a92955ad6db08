#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// The process's open file descriptors (entries of /proc/self/fd) around 50 redirected https
/// downloads through the guarded loader, which are back to their start once the loader is shut
/// down, and a debug build that does not stop on AsyncHTTPClient's "Client not shut down before
/// the deinit".
///
/// Descriptors are the process's, and other suites open and close theirs concurrently, so the
/// test runs its measurement in a child process of the same test binary that runs this test
/// alone (`IMAGO_DESCRIPTOR_PROBE=1`); the parent checks that the child passed.
@Suite struct GuardedDataLoaderDescriptorTests {
    static let probeVariable = "IMAGO_DESCRIPTOR_PROBE"

    /// Descriptors that may appear after the baseline without being the loader's: things made
    /// lazily on first use that the warm-up might not reach (a dispatch or NIO timer facility, a
    /// random-number source): one each, four in all. A leak is a descriptor per connection or per
    /// client, so 50 downloads that leaked would exceed it many times over.
    static let slack = 4

    @Test func descriptorsReturnToTheirStart() async throws {
        if ProcessInfo.processInfo.environment[Self.probeVariable] == "1" {
            try await measure()
            return
        }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var environment = ProcessInfo.processInfo.environment
        environment[Self.probeVariable] = "1"
        let result = try await CommandRunner.run(
            binary, arguments: ["--testing-library", "swift-testing", "--filter", "GuardedDataLoaderDescriptorTests"],
            environment: environment, timeLimit: .seconds(120))
        let output = String(decoding: result.standardOutput + result.standardError, as: UTF8.self)
        let figures = output.split(separator: "\n").filter { $0.hasPrefix("descriptors:") }.joined(separator: "\n")
        #expect(!result.timedOut && !result.terminatedBySignal && result.status == 0, "the child failed:\n\(output)")
        #expect(!figures.isEmpty, "the child ran no measurement:\n\(output)")
        #expect(!output.contains("Fatal error: Client not shut down"), "\(output)")
    }

    /// In the child: a warm-up download through a loader of its own (so the shared event loops
    /// and TLS state exist), the baseline, then the run of ``GuardedDataLoaderTests``, the
    /// shutdown, and the count again.
    private func measure() async throws {
        let origin = try await TLSOrigin.start(body: Array(repeating: 0xCD, count: 4096))
        let warmUp = try GuardedDataLoaderTests.makeLoader(resolver: GuardedDataLoaderTests.resolver)
        try await GuardedDataLoaderTests.redirectedDownloads(5, concurrency: 5, through: warmUp, from: origin)
        try await warmUp.shutdown()
        #expect(await origin.waitUntilNoConnectionIsOpen())
        let before = try await Self.settledDescriptors()

        let loader = try GuardedDataLoaderTests.makeLoader(resolver: GuardedDataLoaderTests.resolver)
        try await GuardedDataLoaderTests.redirectedDownloads(50, concurrency: 5, through: loader, from: origin)
        let during = try Self.openDescriptors()
        // Between downloads only the kept clients' idle connections stay open, each counted twice
        // here (the loader's end and the in-process origin's end).
        let idle = GuardedDataLoaderTests.keptClients * loader.configuration.maximumConnections
        #expect(during <= before + Self.slack + 2 * idle, "before \(before), after the downloads \(during)")
        try await loader.shutdown()
        #expect(await origin.waitUntilNoConnectionIsOpen())
        // Closing is asynchronous on the event loops: a leak stays, a closing descriptor goes.
        let returned = await eventually(within: .seconds(5)) { ((try? Self.openDescriptors()) ?? .max) <= before + Self.slack }
        let after = try Self.openDescriptors()
        print("descriptors: before \(before), after 50 downloads \(during), after shutdown \(after); origin accepted \(origin.acceptedConnections) connections")
        #expect(returned, "before \(before), after \(after)")
        await origin.stop()
    }

    /// The fewest of ten counts 20 ms apart: the baseline without a descriptor that the warm-up
    /// was still closing.
    static func settledDescriptors() async throws -> Int {
        var fewest = try openDescriptors()
        for _ in 0..<9 {
            try await Task.sleep(for: .milliseconds(20))
            fewest = min(fewest, try openDescriptors())
        }
        return fewest
    }

    /// Entries of /proc/self/fd (the directory's own descriptor included, the same each time).
    static func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }
}
#endif
