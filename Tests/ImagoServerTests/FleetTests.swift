#if os(Linux) || os(macOS)
import AsyncHTTPClient
import Foundation
import Imago
import ImagoTestSupport
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import ImagoServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// deploy/nginx.conf in front of three `imago serve` processes (the built executable) on loopback:
/// 300 variants of 30 sources, twice. Each source is downloaded once across the fleet, the second
/// pass never reaches the origin (nginx's cache answers), and with one instance killed (`SIGKILL`)
/// midway no request is lost.
@Suite(.serialized) struct FleetTests {
    static let sources = 30
    static let variantsPerSource = 10

    @Test(.enabled(if: ExternalTools.runsNginx))
    func fleetBehindNginx() async throws {
        let nginx = try #require(ExternalTools.nginx, "install Debian's nginx")
        let origin = try await TestServer.start()
        for index in 0..<Self.sources {
            origin.set("/s\(index).jpg", data: try Fixtures.jpeg(width: 320, height: 240, seed: index), contentType: "image/jpeg")
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imago-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let executable = try #require(BuiltExecutable.url(named: "imago"), "no built imago beside the test bundle")
        var instances: [ServeProcess] = []
        // If the test ends early: no process outlives it (the polite stop is at the end).
        defer { for instance in instances { instance.send(SIGKILL) } }
        for index in 0..<3 {
            instances.append(try await ServeProcess.start(executable, in: root.appendingPathComponent("instance\(index)")))
        }
        let port = try await Self.freePort()
        let configuration = try Self.configuration(
            listen: port, upstreams: instances.map(\.port), root: root)
        let configurationFile = root.appendingPathComponent("nginx.conf")
        try Data(configuration.utf8).write(to: configurationFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", root.path, "-c", configurationFile.path, "-g", "daemon off;"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: root)
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let get: @Sendable (String) async -> (Int, String?) = { path in
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            request.headers.add(name: "Accept", value: "image/jpeg")
            guard let response = try? await client.execute(request, timeout: .seconds(60)),
                (try? await response.body.collect(upTo: 16 * 1024 * 1024)) != nil
            else { return (0, nil) }
            return (Int(response.status.code), response.headers.first(name: "x-cache-status"))
        }
        #expect(await eventually { await get("/healthz").0 == 200 }, "nginx did not start")

        // Variant-major order: at any moment the requests in flight are for different sources.
        func paths(quality: Int) -> [String] {
            (0..<Self.variantsPerSource).flatMap { variant in
                (0..<Self.sources).map { source in
                    "/insecure/rs:fit:\(40 + 8 * variant):\(40 + 8 * variant)/q:\(quality)/plain/"
                        + URLSigner.escaped(origin.url(for: "/s\(source).jpg").absoluteString)
                }
            }
        }
        let victim = instances[1]
        func pass(_ paths: [String], killingAfter: Int? = nil) async -> [(Int, String?)] {
            var results: [(Int, String?)] = []
            var index = 0
            while index < paths.count {
                let batch = Array(paths[index..<min(index + 6, paths.count)])
                let kill = killingAfter.map { index >= $0 && !victim.wasKilled } ?? false
                results += await withTaskGroup(of: (Int, String?)?.self) { group in
                    for path in batch { group.addTask { await get(path) } }
                    if kill {
                        // Killed while this batch is in flight: no drain, its connections reset.
                        group.addTask {
                            try? await Task.sleep(for: .milliseconds(5))
                            await victim.kill()
                            return nil
                        }
                    }
                    return await group.reduce(into: []) { if let result = $1 { $0.append(result) } }
                }
                index += batch.count
            }
            return results
        }

        let first = await pass(paths(quality: 80))
        #expect(first.count == 300 && first.allSatisfy { $0.0 == 200 }, "\(first.filter { $0.0 != 200 })")
        let downloads = (0..<Self.sources).map { origin.requestCount(for: "/s\($0).jpg") }
        #expect(downloads.allSatisfy { $0 == 1 }, "each source downloaded once across the fleet: \(downloads)")
        let originBefore = origin.totalRequestCount
        let second = await pass(paths(quality: 80))
        #expect(second.allSatisfy { $0.0 == 200 && $0.1 == "HIT" })
        #expect(origin.totalRequestCount == originBefore, "the second pass never reaches the origin")

        let third = await pass(paths(quality: 70), killingAfter: 100)
        #expect(victim.wasKilled && victim.exitedBySignal(SIGKILL), "instance 1 was killed with SIGKILL")
        #expect(third.count == 300)
        #expect(third.allSatisfy { $0.0 == 200 }, "lost: \(third.filter { $0.0 != 200 }.count)")

        try? await client.shutdown()
        for instance in instances { await instance.stop() }
        try await origin.shutdown()
    }

    /// deploy/nginx.conf with the lines marked `# test:` pointed at this test's ports and folder.
    static func configuration(listen: Int, upstreams: [Int], root: URL) throws -> String {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/nginx.conf")
        let text = try String(contentsOf: file, encoding: .utf8)
        var servers = upstreams.makeIterator()
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let marker = line.range(of: "# test: ") else {
                lines.append(String(line))
                continue
            }
            let indent = String(line.prefix { $0 == " " })
            switch line[marker.upperBound...].trimmingCharacters(in: .whitespaces) {
            case "pid": lines.append("\(indent)pid \(root.path)/nginx.pid;")
            case "error_log": lines.append("\(indent)error_log \(root.path)/error.log warn;")
            case "temp": lines.append("\(indent)client_body_temp_path \(root.path)/body; proxy_temp_path \(root.path)/proxy;")
            case "server":
                if let port = servers.next() { lines.append("\(indent)server 127.0.0.1:\(port) max_fails=1 fail_timeout=30s;") }
            case "cache":
                lines.append(
                    "\(indent)proxy_cache_path \(root.path)/cache levels=1:2 keys_zone=imago:16m max_size=256m inactive=1h use_temp_path=off;")
            case "listen": lines.append("\(indent)listen 127.0.0.1:\(listen);")
            default: lines.append(String(line))
            }
        }
        return lines.joined(separator: "\n").replacingOccurrences(of: "worker_processes auto;", with: "worker_processes 1;")
    }

    /// One `imago serve` process on a port of its choosing, with its own disk cache; what it prints
    /// goes to files in its folder.
    final class ServeProcess: Sendable {
        let process: Process
        let port: Int
        private let killed = Mutex(false)

        private init(process: Process, port: Int) {
            self.process = process
            self.port = port
        }

        /// Starts `imago serve --port 0` with `arguments` (default: unsigned, private networks
        /// allowed, as the fleet's loopback origin needs) and a cache folder of its own.
        static func start(
            _ executable: URL, in folder: URL, arguments: [String] = ["--allow-unsigned", "--allow-private-networks"]
        ) async throws -> ServeProcess {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let output = folder.appendingPathComponent("stdout.txt")
            let errors = folder.appendingPathComponent("stderr.txt")
            for file in [output, errors] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
            let process = Process()
            // At the lowest priority (`nice` execs it, so the pid is imago's): three servers
            // resizing at full speed must not starve the loopback tests running beside this one.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
            process.arguments = [
                "-n", "19", executable.path, "serve", "--port", "0",
                "--cache-directory", folder.appendingPathComponent("cache").path,
            ] + arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = try FileHandle(forWritingTo: errors)
            try process.run()
            // It prints "listening on http://127.0.0.1:PORT/" once it accepts connections.
            var port: Int?
            let started = await eventually(within: .seconds(60)) {
                let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                guard let range = text.range(of: "listening on http://127.0.0.1:") else { return !process.isRunning }
                port = Int(text[range.upperBound...].prefix { $0.isNumber })
                return true
            }
            guard started, process.isRunning, let port else {
                process.terminate()
                let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
                throw ServeProcessError(message: "imago serve did not start: \(log)")
            }
            return ServeProcess(process: process, port: port)
        }

        var wasKilled: Bool { killed.withLock { $0 } }

        /// Sends `signal` if the process still runs, without waiting.
        func send(_ signal: Int32) {
            guard process.isRunning else { return }
            #if canImport(Glibc)
            _ = Glibc.kill(process.processIdentifier, signal)
            #else
            _ = Darwin.kill(process.processIdentifier, signal)
            #endif
        }

        /// Ends the process at once (`SIGKILL`): no drain, no goodbye to its connections. Waits for
        /// its exit by polling, never with `waitUntilExit()`, which would hold one of the
        /// cooperative pool's two threads while other suites need it.
        func kill() async {
            guard process.isRunning else { return }
            killed.withLock { $0 = true }
            send(SIGKILL)
            _ = await eventually(within: .seconds(60)) { !self.process.isRunning }
        }

        /// Whether the process has ended by `signal`.
        func exitedBySignal(_ signal: Int32) -> Bool {
            !process.isRunning && process.terminationReason == .uncaughtSignal && process.terminationStatus == signal
        }

        /// Stops the process the polite way (`SIGTERM`, which drains), waiting by polling as
        /// ``kill()`` does; `SIGKILL` if it has not ended within a minute.
        func stop() async {
            send(SIGTERM)
            if await !eventually(within: .seconds(60), { !self.process.isRunning }) { send(SIGKILL) }
        }
    }

    struct ServeProcessError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// A port that was free a moment ago.
    static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }
}
#endif
