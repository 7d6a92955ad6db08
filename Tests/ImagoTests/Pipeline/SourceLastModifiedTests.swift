import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// ``ImageResponse/lastModified`` and ``ImagePipeline/OriginalData/lastModified``: the source's
/// `Last-Modified`, read with the pipeline's own HTTP-date parser, from the network and again
/// from the disk entry a later pipeline reads; `nil` when the source sent none or an unreadable one.
@Suite struct SourceLastModifiedTests {
    @Test func theSourcesDateComesFromTheNetworkAndFromDisk() async throws {
        try await PipelineFixture.with { fixture in
            let date = Date(timeIntervalSince1970: 1_793_700_000)
            fixture.server.set(
                "/dated.jpg", data: try Fixtures.jpeg(width: 32, height: 24), contentType: "image/jpeg",
                lastModified: HTTPDate.imfFixdate(date))
            let url = fixture.server.url(for: "/dated.jpg")
            let first = try fixture.makePipeline()
            let downloaded = try await first.image(for: ImageRequest(url: url))
            #expect(downloaded.source == .network && downloaded.lastModified == date)
            await first.waitForDiskWrites()
            let second = try fixture.makePipeline()
            let read = try await second.image(for: ImageRequest(url: url))
            #expect(read.source == .disk && read.lastModified == date)
            #expect(try await second.data(for: ImageRequest(url: url)).lastModified == date)

            for (path, header) in [("/undated.jpg", nil), ("/misdated.jpg", "yesterday")] as [(String, String?)] {
                fixture.server.set(path, data: try Fixtures.jpeg(width: 8, height: 8), contentType: "image/jpeg", lastModified: header)
                #expect(try await first.image(for: ImageRequest(url: fixture.server.url(for: path))).lastModified == nil)
            }
        }
    }
}
