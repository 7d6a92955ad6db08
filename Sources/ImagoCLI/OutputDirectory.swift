import Foundation
import Imago

/// Where `imago fetch --out` writes decoded images: PNG, or JPEG when the source was a JPEG.
struct OutputDirectory: Sendable {
    let url: URL

    init(path: String) throws {
        url = URL(fileURLWithPath: path, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw OutputError(message: "Cannot create the output directory \(path): \(error.localizedDescription)")
        }
    }

    /// Encodes `response`'s image and writes it; returns the file's path.
    func write(_ response: ImageResponse, for source: URL, index: Int) throws(FetchReport.Failure) -> String {
        let isJPEG = response.format == .jpeg
        let data: Data
        do throws(ImagePipeline.Error) {
            data = try response.container.encoded(as: isJPEG ? .jpeg : .png)
        } catch {
            throw FetchReport.Failure(error)
        }
        let stem = source.deletingPathExtension().lastPathComponent
            .filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        let name = "\(index + 1)-\(stem.isEmpty ? "image" : String(stem.prefix(60))).\(isJPEG ? "jpg" : "png")"
        let file = url.appendingPathComponent(name)
        do {
            try data.write(to: file)
        } catch {
            throw FetchReport.Failure(
                code: "write_failed", message: "Cannot write \(file.path): \(error.localizedDescription)")
        }
        return file.path
    }
}

/// A failure to prepare the output directory, reported as a usage problem.
struct OutputError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
