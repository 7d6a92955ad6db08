#if os(Linux)
import Foundation
import Hummingbird
import NIOCore
import Testing

@testable import ImagoServer

/// ``ProxyRoute``'s responses, written to a recording writer: large bodies in pieces under a
/// lease, small ones whole, HEAD and 304 without a body.
@Suite struct ProxyRouteTests {
    /// What a response body wrote: the size of each buffer, and whether it finished.
    final class Record {
        var pieces: [Int] = []
        var finished = false
    }

    /// Records what a response body writes.
    struct RecordingWriter: ResponseBodyWriter {
        let record: Record

        mutating func write(_ buffer: ByteBuffer) async throws {
            record.pieces.append(buffer.readableBytes)
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
            record.finished = true
        }
    }

    static func write(_ response: Response) async throws -> (pieces: [Int], finished: Bool) {
        let record = Record()
        try await response.body.write(RecordingWriter(record: record))
        return (record.pieces, record.finished)
    }

    static func answer(bytes: Int, status: Int = 200) -> ProxyResponse {
        ProxyResponse(status: status, headers: [("Content-Type", "image/png")], body: Data(repeating: 1, count: bytes))
    }

    /// A 1 MiB body goes out in 64 KiB pieces, never as one buffer, and holds its lease until
    /// the response is gone.
    @Test func streamsALargeBodyInPiecesUnderALease() async throws {
        let inFlight = ResponseBytesInFlight(limit: 8 * 1024 * 1024, metrics: nil)
        var response: Response? = ProxyRoute.response(
            Self.answer(bytes: 1024 * 1024), sendsBody: true, inFlight: inFlight, pacedBy: nil, retryAfter: 1)
        #expect(response?.headers[.contentLength] == "\(1024 * 1024)")
        #expect(inFlight.bytesInFlight == 1024 * 1024)
        let written = try await Self.write(try #require(response))
        #expect(written.pieces == Array(repeating: ProxyRoute.chunkSize, count: 16))
        #expect(written.finished)
        response = nil
        #expect(inFlight.bytesInFlight == 0)
    }

    @Test func answers503WhenTheBudgetIsFull() async throws {
        let inFlight = ResponseBytesInFlight(limit: 1024 * 1024, metrics: nil)
        let holding = ProxyRoute.response(Self.answer(bytes: 1024 * 1024), sendsBody: true, inFlight: inFlight, pacedBy: nil, retryAfter: 1)
        let refused = ProxyRoute.response(Self.answer(bytes: 512 * 1024), sendsBody: true, inFlight: inFlight, pacedBy: nil, retryAfter: 4)
        #expect(refused.status.code == 503)
        #expect(refused.headers[.retryAfter] == "4")
        #expect(holding.status.code == 200)
    }

    @Test func smallBodiesHeadAnd304() async throws {
        let inFlight = ResponseBytesInFlight(limit: 0, metrics: nil)
        let small = ProxyRoute.response(Self.answer(bytes: 1000), sendsBody: true, inFlight: inFlight, pacedBy: nil, retryAfter: 1)
        #expect(try await Self.write(small).pieces == [1000])
        let head = ProxyRoute.response(Self.answer(bytes: 1024 * 1024), sendsBody: false, inFlight: inFlight, pacedBy: nil, retryAfter: 1)
        #expect(head.headers[.contentLength] == "\(1024 * 1024)")
        #expect(try await Self.write(head).pieces.isEmpty)
        #expect(inFlight.bytesInFlight == 0, "HEAD never holds a lease")
        let notModified = ProxyRoute.response(
            ProxyResponse(status: 304, headers: [("ETag", "\"x\"")]), sendsBody: true, inFlight: inFlight, pacedBy: nil, retryAfter: 1)
        #expect(notModified.status.code == 304)
        #expect(try await Self.write(notModified).pieces.isEmpty)
    }
}
#endif
