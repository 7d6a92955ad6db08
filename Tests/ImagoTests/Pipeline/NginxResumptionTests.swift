import Foundation
import Imago
import ImagoTestSupport
import Testing

/// Resumption against a server no one here wrote: nginx serving a static file (it honours `Range`
/// and `If-Range` itself). A request without `Range` is rate-limited (16 KB/s), so the loader's
/// short download timeout cuts it; the request that resumes it carries `Range` and is served at
/// full speed. nginx's access log says what it answered and how many body bytes it sent.
@Suite(.serialized) struct NginxResumptionTests {
    @Test(.enabled(if: ExternalPrograms.runsNginx), arguments: LoaderKind.allCases)
    func aDownloadCutByATimeoutResumesFromNginx(_ kind: LoaderKind) async throws {
        let nginx = try #require(ExternalPrograms.nginx, "install Debian's nginx")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imago-nginx-\(UUID().uuidString)")
        let www = root.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let photo = try Fixtures.jpeg(width: 1600, height: 1200, seed: 5, quality: 0.98)
        try #require(photo.count > 100_000, "big enough that 16 KB/s cannot send it within the timeout")
        try photo.write(to: www.appendingPathComponent("photo.jpg"))

        let port = try ExternalPrograms.freePort()
        let configuration = root.appendingPathComponent("nginx.conf")
        try Data(Self.configuration(root: root, port: port).utf8).write(to: configuration)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", root.path, "-c", configuration.path, "-g", "daemon off;"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }

        let timeout = Duration.seconds(2)
        let loader = kind.makeDataLoader(DataLoader.Configuration(downloadTimeout: timeout))
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/photo.jpg"))
        let ping = try #require(URL(string: "http://127.0.0.1:\(port)/ping"))
        #expect(await eventually { (try? await loader.load(ping)) != nil }, "nginx did not start")

        var pipelineConfiguration = ImagePipeline.Configuration(dataLoader: loader, connectivity: .alwaysReachable)
        pipelineConfiguration.retryPolicy = .never
        let store = ResumableDataStore()
        pipelineConfiguration.resumableData = store
        let pipeline = ImagePipeline(configuration: pipelineConfiguration)

        // The first download runs into the timeout partway.
        await #expect(throws: ImagePipeline.Error.timedOut(url, .download, after: timeout)) {
            try await pipeline.image(for: ImageRequest(url: url))
        }
        let kept = store.totalBytes
        #expect(kept > 0 && kept < photo.count, "kept \(kept) of \(photo.count) bytes")

        // The second asks for the rest and gets it.
        let response = try await pipeline.image(for: ImageRequest(url: url))
        #expect(try response.container.bitmap() == ImageDecoder.decode(photo).bitmap())

        // nginx logs a request when it ends. The cut one ends when nginx next writes to its closed
        // connection, which its rate limit may put after the resumed request: wait for both lines
        // (20 s at most), and tell them apart by their Range.
        var log: [Substring] = []
        for _ in 0..<200 {
            log = try String(contentsOf: root.appendingPathComponent("access.log"), encoding: .utf8)
                .split(separator: "\n").filter { $0.contains("/photo.jpg") }
            if log.count >= 2 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try #require(log.count == 2, "\(log)")
        let line = try #require(log.first { $0.contains("\"bytes=") }, "no request asked for a range: \(log)")
        let resumed = line.split(separator: " ", maxSplits: 4).map(String.init)
        // status, body bytes sent, request line's path, Range, If-Range
        #expect(resumed[0] == "206", "\(line)")
        #expect(Int(resumed[1]) == photo.count - kept, "nginx sent only the missing bytes: \(line)")
        #expect(resumed[3] == "\"bytes=\(kept)-\"", "\(line)")
        #expect(resumed[4].hasPrefix("\"\\x22"), "If-Range carried nginx's ETag (its log writes quotes as \\x22): \(line)")
        #expect(log.filter { $0.contains("\"bytes=") }.count == 1, "the first request asked for the whole file: \(log)")
        #expect(store.count == 0)
    }

    /// A minimal nginx: one worker, everything under `root`, a log of what each request got, and a
    /// rate limit for requests without `Range`.
    static func configuration(root: URL, port: Int) -> String {
        let path = root.path
        return """
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log warn;
            events { worker_connections 64; }
            http {
                log_format resumption '$status $body_bytes_sent $uri "$http_range" "$http_if_range"';
                access_log \(path)/access.log resumption;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                default_type image/jpeg;
                map $http_range $rate { "" 16k; default 0; }
                server {
                    listen 127.0.0.1:\(port);
                    root \(path)/www;
                    location = /ping { return 200 "ok"; }
                    location / { limit_rate $rate; }
                }
            }
            """
    }
}
