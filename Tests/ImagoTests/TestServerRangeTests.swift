import Foundation
import Imago
import ImagoTestSupport
import Testing

/// The loopback server's ranges, as the resumption tests rely on them: what it answers to
/// `Range` and `If-Range`, its range misbehaviours, its slices, and the body bytes it counts.
@Suite struct TestServerRangeTests {
    private let client = LoaderKind.allCases[0]

    @Test func answersARangeWith206AndCountsOnlyItsBytes() async throws {
        try await withTestServer { server in
            let bytes = sampleBytes(1_000)
            server.set("/a", data: bytes, etag: "\"v1\"", acceptsRanges: true)
            let response = try await client.withLoader { try await $0.load(server.url(for: "/a"), headers: ["Range": "bytes=600-"]) }
            #expect(response.statusCode == 206)
            #expect(response.data == bytes.dropFirst(600))
            #expect(response.headers["content-range"] == "bytes 600-999/1000")
            #expect(response.headers["accept-ranges"] == "bytes")
            #expect(server.bodyBytesSent(for: "/a") == 400)
            let closed = try await client.withLoader { try await $0.load(server.url(for: "/a"), headers: ["Range": "bytes=10-19"]) }
            #expect(closed.data == bytes.dropFirst(10).prefix(10))
            #expect(server.bodyBytesSent(for: "/a") == 410)
        }
    }

    @Test func anIfRangeForAnotherVersionGetsTheWholeBody() async throws {
        try await withTestServer { server in
            let bytes = sampleBytes(1_000)
            server.set("/a", data: bytes, etag: "\"v2\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", acceptsRanges: true)
            try await client.withLoader { loader in
                let stale = try await loader.load(server.url(for: "/a"), headers: ["Range": "bytes=600-", "If-Range": "\"v1\""])
                #expect(stale.statusCode == 200 && stale.data == bytes)
                let current = try await loader.load(server.url(for: "/a"), headers: ["Range": "bytes=600-", "If-Range": "\"v2\""])
                #expect(current.statusCode == 206)
                let dated = try await loader.load(
                    server.url(for: "/a"), headers: ["Range": "bytes=600-", "If-Range": "Wed, 21 Oct 2015 07:28:00 GMT"])
                #expect(dated.statusCode == 206)
                let weak = try await loader.load(server.url(for: "/a"), headers: ["Range": "bytes=600-", "If-Range": "W/\"v2\""])
                #expect(weak.statusCode == 200, "a weak tag never matches If-Range")
            }
        }
    }

    @Test func withoutRangesOrPastTheEnd() async throws {
        try await withTestServer { server in
            server.set("/plain", data: sampleBytes(100))
            server.set("/ranged", data: sampleBytes(100), acceptsRanges: true)
            try await client.withLoader { loader in
                let plain = try await loader.load(server.url(for: "/plain"), headers: ["Range": "bytes=50-"])
                #expect(plain.statusCode == 200 && plain.data.count == 100 && plain.headers["accept-ranges"] == nil)
                let error = await loader.error(loading: server.url(for: "/ranged"), headers: ["Range": "bytes=100-"])
                #expect(error == .httpStatus(server.url(for: "/ranged"), statusCode: 416))
            }
        }
    }

    @Test func rangeMisbehaviours() async throws {
        try await withTestServer { server in
            let bytes = sampleBytes(1_000)
            server.set("/a", data: bytes, etag: "\"v1\"")
            try await client.withLoader { loader in
                server.setBehavior("/a", .ignoresRange)
                let ignored = try await loader.load(server.url(for: "/a"), headers: ["Range": "bytes=600-"])
                #expect(ignored.statusCode == 200 && ignored.data == bytes && ignored.headers["accept-ranges"] == "bytes")
                server.setBehavior("/a", .wrongContentRange("bytes 0-399/1000"))
                let wrong = try await loader.load(server.url(for: "/a"), headers: ["Range": "bytes=600-"])
                #expect(wrong.statusCode == 206 && wrong.data == bytes.dropFirst(600))
                #expect(wrong.headers["content-range"] == "bytes 0-399/1000")
                server.setBehavior("/a", .ignoresIfRange)
                let unconditional = try await loader.load(server.url(for: "/a"), headers: ["Range": "bytes=600-", "If-Range": "\"old\""])
                #expect(unconditional.statusCode == 206 && unconditional.headers["etag"] == "\"v1\"")
                server.setBehavior("/a", .ignoresIfRangeWithoutValidators)
                let anonymous = try await loader.load(server.url(for: "/a"), headers: ["Range": "bytes=600-", "If-Range": "\"old\""])
                #expect(anonymous.statusCode == 206 && anonymous.data == bytes.dropFirst(600))
                #expect(anonymous.headers["etag"] == nil && anonymous.headers["last-modified"] == nil)
            }
        }
    }

    /// A 304 carries what RFC 9110 §15.4.5 requires of it: the Cache-Control, Content-Location,
    /// Date, ETag, Expires and Vary a 200 would have carried, and no body headers.
    @Test func a304CarriesTheHeadersA200Would() async throws {
        try await withTestServer { server in
            let extra = [
                "Cache-Control": "max-age=60", "Content-Location": "/a.png", "Expires": "Thu, 01 Dec 2044 16:00:00 GMT",
                "Vary": "Accept", "X-Other": "1",
            ]
            server.set("/a", data: sampleBytes(100), contentType: "image/png", headers: extra, etag: "\"v1\"",
                lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", acceptsRanges: true)
            try await client.withLoader { loader in
                let whole = try await loader.load(server.url(for: "/a"))
                let notModified = try await loader.load(server.url(for: "/a"), headers: ["If-None-Match": "\"v1\""])
                #expect(notModified.statusCode == 304)
                for name in ["cache-control", "content-location", "expires", "vary", "etag"] {
                    #expect(notModified.headers[name] == whole.headers[name], "\(name)")
                    #expect(notModified.headers[name] != nil, "\(name)")
                }
                #expect(notModified.headers["date"].flatMap { HTTPDate($0) } != nil, "a Date, as on every answer")
                #expect(whole.headers["date"].flatMap { HTTPDate($0) } != nil)
                for name in ["content-type", "accept-ranges", "x-other", "last-modified"] {
                    #expect(notModified.headers[name] == nil, "\(name) is not one a 304 carries")
                }
                // Behaviour headers count as the 200's; Last-Modified guides the update when there is no ETag.
                server.set("/b", data: sampleBytes(100), lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
                server.setBehavior("/b", .headers(["Cache-Control": "no-store"]))
                let dated = try await loader.load(server.url(for: "/b"), headers: ["If-Modified-Since": "Wed, 21 Oct 2015 07:28:00 GMT"])
                #expect(dated.statusCode == 304)
                #expect(dated.headers["cache-control"] == "no-store")
                #expect(dated.headers["last-modified"] == "Wed, 21 Oct 2015 07:28:00 GMT")
            }
        }
    }

    @Test func slicesWaitForEachRelease() async throws {
        try await withTestServer { server in
            let bytes = sampleBytes(30_000)
            server.set("/a", data: bytes)
            server.setBehavior("/a", .slices(boundaries: [10_000, 20_000]))
            let loader = LoaderKind.allCases[0].makeDataLoader()
            let task = Task { try await loader.load(server.url(for: "/a")) }
            #expect(await eventually { server.bodyBytesSent(for: "/a") == 10_000 })
            try await Task.sleep(for: .milliseconds(50))
            #expect(server.bodyBytesSent(for: "/a") == 10_000, "the second part waits for its release")
            server.sendNextSlice("/a")
            #expect(await eventually { server.bodyBytesSent(for: "/a") == 20_000 })
            server.sendNextSlice("/a")
            #expect(try await task.value.data == bytes)
        }
    }
}
