#if os(Linux)
import AsyncHTTPClient
import Foundation
import Imago
import ImagoTestSupport
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

    @Test(.enabled(if: ExternalPrograms.runsNginx))
    func fleetBehindNginx() async throws {
        let nginx = try #require(ExternalPrograms.nginx, "install Debian's nginx")
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
        let port = try ExternalPrograms.freePort()
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
}
#endif
