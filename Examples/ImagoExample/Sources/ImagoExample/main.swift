// `swift run ImagoExample URL [OUTPUT.png]`: loads URL, prints the response, and saves a thumbnail
// (at most 256 pixels a side) as a PNG file (default: thumbnail.png).
import Foundation
import Imago

let arguments = CommandLine.arguments.dropFirst()
guard (1...2).contains(arguments.count), let url = URL(string: arguments[arguments.startIndex]) else {
    print("usage: ImagoExample URL [OUTPUT.png]")
    exit(2)
}
let output = URL(fileURLWithPath: arguments.dropFirst().first ?? "thumbnail.png")

let pipeline = ImagePipeline()
do {
    // The whole image: its description says what, from where, and how long it took.
    let original = try await pipeline.image(for: ImageRequest(url: url))
    print(original)   // JPEG 1200x800 from network (123.4 KB) in 25.1 ms

    // A thumbnail, decoded straight at the smaller size (without a disk cache, the bytes are
    // downloaded again), then encoded as PNG: the same call writes JPEG or WebP.
    let thumbnail = try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 256))
    try thumbnail.container.encoded(as: .png).write(to: output)
    print("saved \(thumbnail.container.pixelSize) to \(output.path)")
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))   // what happened, and what to do
    exit(1)
}
