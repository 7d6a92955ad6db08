// `imago-test-server`: the loopback TestServer as a process, serving a few generated images, so
// examples and first programs have a server to load from without the network. CI runs
// Examples/ImagoExample against it (`.ci/run example`).
//
//     imago-test-server [SECONDS]
//
// Prints its base URL (`http://127.0.0.1:PORT/`) on the first line, then the paths it serves, and
// stops by itself after SECONDS (default 600), or earlier when killed.
import Foundation
import ImagoTestSupport

#if os(Linux) || os(macOS)
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count <= 1, let seconds = Int(arguments.first ?? "600"), seconds > 0 else {
    FileHandle.standardError.write(Data("usage: imago-test-server [SECONDS]   (default 600)\n".utf8))
    exit(2)
}

let images: [(path: String, data: Data, contentType: String)] = [
    ("photo.jpg", try Fixtures.jpeg(width: 1200, height: 800, seed: 1), "image/jpeg"),
    ("logo.png", try Fixtures.png(width: 400, height: 400, seed: 2, transparent: true), "image/png"),
]
let server = try await TestServer.start()
for image in images { server.set(image.path, data: image.data, contentType: image.contentType) }
// Written unbuffered, so a script reading a pipe sees the URL at once.
var lines = [server.baseURL.absoluteString]
for image in images { lines.append("  \(server.url(for: image.path).absoluteString)  \(image.contentType), \(image.data.count) bytes") }
FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
try await Task.sleep(for: .seconds(seconds))
try await server.shutdown()
#else
print("imago-test-server runs on Linux and macOS only")
#endif
