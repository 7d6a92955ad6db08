import Foundation

@testable import Imago

/// What every harness shares: how libFuzzer's bytes become `Data`, and the decoding limits a fuzz
/// run uses (small enough that an input declaring a huge image is refused from its header instead
/// of allocating gigabytes, which would only measure the machine).
///
/// Tests/ImagoTests/Fuzz/FuzzCorpusReplayTests.swift replays the corpora through the same calls
/// with the same limits; keep the two in step.
enum FuzzTarget {
    static let limits: DecodingLimits = {
        var limits = DecodingLimits()
        limits.maximumPixelCount = 4_000_000
        limits.maximumDimension = 16_384
        limits.maximumFrameCount = 64
        limits.maximumTotalFramePixels = 16_000_000
        return limits
    }()

    /// libFuzzer's input as `Data` (a zero-length input may come with a null pointer).
    static func data(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Data {
        guard let start, count > 0 else { return Data() }
        return Data(bytes: start, count: count)
    }

    /// Decodes `data` through the public entry point when it sniffs as `format`; other inputs are
    /// skipped so each decoder's harness spends its time on its own format.
    static func decode(_ data: Data, as format: ImageFormat) {
        guard ImageFormat.sniff(data) == format else { return }
        do {
            let container = try ImageDecoder.decode(data, limits: limits)
            // Reach every frame's pixels the way callers do.
            for frame in container.frames { _ = try? frame.bitmap() }
            _ = try? container.bitmap()
        } catch {
            _ = error.description
        }
    }

    /// Counts a JPEG's scans from its markers and applies the scan limit, as Apple platforms do.
    static func jpegScans(_ data: Data) {
        _ = JPEGScanCounter.scanCount(of: data, stoppingAfter: 1_000)
        _ = try? JPEGScanCounter.check(data, limits: limits, url: nil)
    }

    /// Probes the header and computes what the pipeline computes from it.
    static func probe(_ data: Data) {
        // The details `imago inspect` prints: PNG chunks, JPEG frame header, GIF blocks, WebP chunks.
        _ = ImageHeader.details(data)
        guard let header = ImageHeader.probe(data) else { return }
        _ = header.pixelCount
        _ = try? limits.check(width: header.width, height: header.height, url: nil)
    }

    /// Reads the EXIF orientation of the bytes as if they were a JPEG.
    static func exifOrientation(_ data: Data) {
        let orientation = data.withUnsafeBytes { raw in
            EXIFOrientation(jpeg: raw.bindMemory(to: UInt8.self))
        }
        _ = orientation?.swapsDimensions
    }

    /// Decodes a disk-cache entry header; a valid one must lie inside the bytes it came from.
    static func diskEntryHeader(_ data: Data) {
        let decoded = data.withUnsafeBytes { EntryHeader.decode($0) }
        if case .header(let header, let length) = decoded {
            precondition(length <= data.count, "a decoded header claims bytes past the end")
            _ = header.encoded()
        }
    }

    /// Splits a response head into a status code and header fields, then feeds it to everything
    /// that reads response headers.
    static func responseHead(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? $0.dropLast() : $0
        }
        let statusCode = lines.isEmpty ? 200 : Int(lines.removeFirst().trimmingCharacters(in: .whitespaces)) ?? 200
        var fields: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        var headers: [String: String] = [:]
        for (name, value) in fields {
            headers[name.lowercased()] = headers[name.lowercased()].map { "\($0), \(value)" } ?? value
        }

        let validators = HTTPValidators(responseHeaders: headers)
        _ = validators.lifetime
        _ = validators.conditionalRequestHeaders
        _ = HTTPValidators(metadata: validators.metadata)

        let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
        if let value = headers["retry-after"] { _ = DownloadValidator.retryAfter(value, now: now) }

        let url = URL(string: "http://127.0.0.1/fuzz.jpg")!
        let request = DataRequest(url: url, headers: ["If-None-Match": "\"x\""])
        var validator = DownloadValidator(request: request, configuration: DataLoaderConfiguration())
        do {
            try validator.receive(statusCode: statusCode, headers: fields)
            try validator.receive(Array("body".utf8))
            _ = validator.progress
            _ = try validator.finish()
        } catch {
            var generator = SystemRandomNumberGenerator()
            _ = RetryPolicy.default.delay(after: error, attempt: 1, using: &generator)
            _ = validator.interrupted(reason: "fuzz").description
        }
    }
}
