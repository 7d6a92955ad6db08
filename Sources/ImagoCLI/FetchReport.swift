import Foundation
import Imago

/// The outcome of loading one URL, printed as a table row or a JSON line.
struct FetchReport: Sendable {
    let url: String
    let result: Result<Loaded, Failure>

    struct Loaded: Sendable {
        let source: ImageResponse.Source
        let format: ImageFormat
        let size: PixelSize
        let frames: Int
        let bytes: Int?
        let file: String?
        let timing: ImageResponse.Timing
        /// What a lenient decode repaired in a damaged source, one line each; empty when clean.
        var repairs: [String] = []
        /// Bytes kept from an attempt that stopped early and not downloaded again (0: none).
        var resumedBytes = 0
    }

    /// Why a URL failed: a stable code and a sentence.
    struct Failure: Error, Sendable {
        let code: String
        let message: String
        /// Download attempts that ended in the failure; nil for a failure outside the pipeline.
        let attempts: Int?

        init(_ error: ImagePipeline.Error) {
            code = error.code
            message = error.description
            attempts = error.attempts
        }

        init(code: String, message: String) {
            self.code = code
            self.message = message
            attempts = nil
        }

        /// `{"code", "message"}`, the `error` member of a failed line.
        var json: JSONValue { .object(["code": .string(code), "message": .string(message)]) }
    }

    var ok: Bool { if case .success = result { true } else { false } }

    /// Encoded bytes of a loaded image (0 for a failure or an image from memory).
    var byteCount: Int { if case .success(let loaded) = result { loaded.bytes ?? 0 } else { 0 } }

    /// Loads `request` and, when `output` is set, writes the image there; `preview` is told of each
    /// preview, when the pipeline decodes them.
    static func load(
        _ request: ImageRequest, index: Int, pipeline: ImagePipeline, output: OutputDirectory?,
        preview: (@Sendable (ImagePreview) -> Void)? = nil
    ) async -> FetchReport {
        let url = request.url.absoluteString
        do throws(Failure) {
            let response: ImageResponse
            do throws(ImagePipeline.Error) {
                let task = pipeline.imageTask(with: request)
                if let preview {
                    for await event in task.events {
                        if case .preview(_, let image) = event { preview(image) }
                    }
                }
                response = try await task.response
            } catch {
                throw Failure(error)
            }
            let file = try output?.write(response, for: request.url, index: index)
            let loaded = Loaded(
                source: response.source, format: response.format, size: response.container.pixelSize,
                frames: response.container.frameCount, bytes: response.encodedByteCount, file: file,
                timing: response.timing, repairs: response.repairs.map(\.description),
                resumedBytes: response.resumedByteCount)
            return FetchReport(url: url, result: .success(loaded))
        } catch {
            return FetchReport(url: url, result: .failure(error))
        }
    }

    /// `{"url", "ok", "source", "format", "width", "height", "frames", "bytes"}` (with `"repairs"`,
    /// a list of sentences, when a damaged source was decoded leniently, and `"resumed_bytes"`, the
    /// bytes an interrupted attempt left that were not downloaded again, when it resumed one) or
    /// `{"url", "ok": false, "error": {"code", "message"}, "attempts"}`, on one line.
    func jsonLine() -> String {
        var object: [String: JSONValue] = ["url": .string(url), "ok": .bool(ok)]
        switch result {
        case .success(let loaded):
            object["source"] = .string(loaded.source.rawValue)
            object["format"] = .string(loaded.format.rawValue)
            object["width"] = .int(loaded.size.width)
            object["height"] = .int(loaded.size.height)
            object["frames"] = .int(loaded.frames)
            object["bytes"] = loaded.bytes.map(JSONValue.int) ?? .null
            if let file = loaded.file { object["file"] = .string(file) }
            object["attempts"] = .int(loaded.timing.attempts)
            object["timing_ms"] = .object(Self.milliseconds(loaded.timing))
            if !loaded.repairs.isEmpty { object["repairs"] = .array(loaded.repairs.map(JSONValue.string)) }
            if loaded.resumedBytes > 0 { object["resumed_bytes"] = .int(loaded.resumedBytes) }
        case .failure(let error):
            object["error"] = error.json
            if let attempts = error.attempts { object["attempts"] = .int(attempts) }
        }
        return JSONValue.object(object).encoded()
    }

    /// Each stage that ran, in milliseconds.
    private static func milliseconds(_ timing: ImageResponse.Timing) -> [String: JSONValue] {
        let stages: [(String, Duration?)] = [
            ("queued", timing.queued), ("disk", timing.diskRead), ("download", timing.download),
            ("decode", timing.decode), ("process", timing.process), ("total", timing.total),
        ]
        var object: [String: JSONValue] = [:]
        for (name, duration) in stages {
            guard let duration else { continue }
            let components = duration.components
            let value = Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
            object[name] = .double((value * 1000).rounded() / 1000)
        }
        return object
    }

    /// A human-readable line.
    func textLine() -> String {
        switch result {
        case .success(let loaded):
            let bytes = loaded.bytes.map { ByteCount.format($0) } ?? "-"
            let frames = loaded.frames > 1 ? " \(loaded.frames) frames" : ""
            let file = loaded.file.map { " → \($0)" } ?? ""
            let repairs = loaded.repairs.isEmpty ? "" : " (damaged: \(loaded.repairs.joined(separator: "; ")))"
            let resumed = loaded.resumedBytes > 0 ? " (resumed after \(ByteCount.format(loaded.resumedBytes)))" : ""
            return "ok   \(loaded.source.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) "
                + "\(loaded.format) \(loaded.size)\(frames) \(bytes)  \(url)\(file)\(resumed)\(repairs)"
        case .failure(let error):
            return "FAIL \(error.code): \(error.message)"
        }
    }
}
