import Foundation
import Imago
import ImagoTestSupport
import Testing

extension LoadingTests {
    /// What both loaders return when the server behaves: bodies, headers, progress, 304s, redirects.
    @Suite struct DataLoaderResponseTests {
        @Test(arguments: LoaderKind.allCases)
        func returnsTheBodyStatusAndLowerCasedHeaders(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                let body = sampleBytes(10_000)
                server.set("/a.png", data: body, contentType: "image/png", headers: ["X-Served-By": "test"])
                let response = try await kind.withLoader { try await $0.load(server.url(for: "/a.png")) }
                #expect(response.data == body)
                #expect(response.statusCode == 200)
                #expect(response.headers["content-type"] == "image/png")
                #expect(response.headers["x-served-by"] == "test")
                #expect(response.headers["content-length"] == "10000")
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func sendsUserAgentAndAcceptUnlessTheRequestSetsThem(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.set("/a.png", data: sampleBytes(10))
                var configuration = DataLoader.Configuration()
                configuration.userAgent = "ImagoTests/1.0"
                try await kind.withLoader(configuration) { loader in
                    _ = try await loader.load(server.url(for: "/a.png"))
                    _ = try await loader.load(server.url(for: "/a.png"), headers: ["accept": "image/png", "Authorization": "Bearer x"])
                }
                let requests = server.requests(for: "/a.png")
                try #require(requests.count == 2)
                #expect(requests[0].method == "GET")
                #expect(requests[0].header("User-Agent") == "ImagoTests/1.0")
                #expect(requests[0].header("Accept")?.hasPrefix("image/") == true)
                #expect(requests[1].header("Accept") == "image/png")
                #expect(requests[1].header("Authorization") == "Bearer x")
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func reportsProgressUpToTheDeclaredTotal(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                let body = sampleBytes(300_000)
                server.set("/big.png", data: body)
                let log = ProgressLog()
                let response = try await kind.withLoader { loader in
                    try await loader.loadData(for: DataLoader.Request(url: server.url(for: "/big.png")), progress: log.record)
                }
                #expect(response.data == body)
                let reports = log.all
                #expect(!reports.isEmpty)
                #expect(reports.allSatisfy { $0.total == 300_000 })
                #expect(reports.last?.completed == 300_000)
                #expect(reports.last?.fraction == 1)
                #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.completed <= $1.completed })
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func reportsProgressWithoutATotalForChunkedBodies(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                let body = sampleBytes(50_000)
                server.set("/chunked.png", data: body)
                server.setBehavior("/chunked.png", .chunked(chunkSize: 4_000))
                let log = ProgressLog()
                let response = try await kind.withLoader { loader in
                    try await loader.loadData(for: DataLoader.Request(url: server.url(for: "/chunked.png")), progress: log.record)
                }
                #expect(response.data == body)
                #expect(log.all.allSatisfy { $0.total == nil })
                #expect(log.all.last?.completed == 50_000)
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func answersARevalidationWith304AndNoBody(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.set("/e.png", data: sampleBytes(500), etag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
                try await kind.withLoader { loader in
                    let byTag = try await loader.load(server.url(for: "/e.png"), headers: ["If-None-Match": "\"v1\""])
                    #expect(byTag.statusCode == 304)
                    #expect(byTag.data.isEmpty)
                    #expect(byTag.headers["etag"] == "\"v1\"")

                    let byDate = try await loader.load(
                        server.url(for: "/e.png"), headers: ["If-Modified-Since": "Wed, 21 Oct 2015 07:28:00 GMT"])
                    #expect(byDate.statusCode == 304)

                    let changed = try await loader.load(server.url(for: "/e.png"), headers: ["If-None-Match": "\"v0\""])
                    #expect(changed.statusCode == 200)
                    #expect(changed.data.count == 500)
                }
                #expect(server.requests(for: "/e.png").first?.header("if-none-match") == "\"v1\"")
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func refusesA304ThatAnswersNoConditionalRequest(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.setBehavior("/e.png", .status(304))
                let url = server.url(for: "/e.png")
                let error = try await kind.withLoader { await $0.error(loading: url) }
                #expect(error == .httpStatus(url, statusCode: 304))
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func followsRedirects(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.set("/b.png", data: sampleBytes(100))
                server.setBehavior("/a.png", .status(302, headers: ["Location": "/b.png"]))
                let response = try await kind.withLoader { try await $0.load(server.url(for: "/a.png")) }
                #expect(response.data == sampleBytes(100))
                #expect(server.requestCount(for: "/b.png") == 1)
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func givesUpOnARedirectCycle(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.setBehavior("/a.png", .status(302, headers: ["Location": "/b.png"]))
                server.setBehavior("/b.png", .status(302, headers: ["Location": "/a.png"]))
                let error = try await kind.withLoader { await $0.error(loading: server.url(for: "/a.png")) }
                #expect(error?.code == "connection_failed")
                #expect(error?.description.contains("redirect") == true)
                #expect(server.totalRequestCount <= 6)
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func passesAnHTMLPageThroughForTheDecoderToRefuse(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                server.setBehavior("/a.png", .html)
                let response = try await kind.withLoader { try await $0.load(server.url(for: "/a.png")) }
                #expect(response.headers["content-type"]?.hasPrefix("text/html") == true)
                #expect(String(decoding: response.data, as: UTF8.self).contains("<html>"))
            }
        }

        @Test(arguments: LoaderKind.allCases)
        func keepsToTheConnectionLimit(_ kind: LoaderKind) async throws {
            try await withTestServer { server in
                for index in 0..<6 {
                    server.set("/\(index).png", data: sampleBytes(100))
                    server.setBehavior("/\(index).png", .delay(.milliseconds(100)))
                }
                var configuration = DataLoader.Configuration()
                configuration.maximumConnections = 2
                try await kind.withLoader(configuration) { loader in
                    try await loader.loadConcurrently((0..<6).map { server.url(for: "/\($0).png") })
                }
                #expect(server.totalRequestCount == 6)
                #expect(server.maximumConcurrentConnections <= 2)
                #expect(server.maximumConcurrentRequests <= 2)
            }
        }
    }
}
