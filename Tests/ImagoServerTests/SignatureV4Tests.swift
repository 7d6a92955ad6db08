#if os(Linux)
import Foundation
import Testing

@testable import ImagoServer

/// ``SignatureV4`` against AWS's published examples: the Signature Version 4 test suite's
/// `get-vanilla` and the S3 documentation's `GetObject` example (signature and string to sign
/// as AWS's documentation prints them), then S3's own rules: the payload hash line, the key
/// encoded segment by segment with `/` kept, the version query, the session token.
@Suite struct SignatureV4Tests {
    /// 2015-08-30 12:36:00 UTC, the test suite's time.
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)
    /// 2013-05-24 00:00:00 UTC, the S3 example's time.
    static let s3Date = Date(timeIntervalSince1970: 1_369_353_600)

    @Test func getVanillaOfAWSsTestSuite() {
        let signer = SignatureV4(
            credentials: .init(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "service")
        let signed = signer.sign(host: "example.amazonaws.com", path: "/", date: Self.suiteDate)
        #expect(
            signed.canonicalRequest
                == "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            signed.headers["Authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
        #expect(signed.headers["x-amz-date"] == "20150830T123600Z")
    }

    @Test func getObjectOfS3sDocumentation() {
        let signer = SignatureV4(
            credentials: .init(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "s3")
        let signed = signer.sign(
            host: "examplebucket.s3.amazonaws.com", path: "/test.txt",
            headers: ["Range": "bytes=0-9", "x-amz-content-sha256": SignatureV4.emptyPayloadHash], date: Self.s3Date)
        #expect(
            signed.stringToSign
                == "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972")
        #expect(
            signed.headers["Authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func unsignedPayloadIsTheCanonicalRequestsLastLine() {
        let signer = SignatureV4(credentials: .init(accessKeyID: "A", secretAccessKey: "S"), region: "us-east-1", service: "s3")
        let unsigned = signer.sign(
            host: "h", path: "/k", headers: ["x-amz-content-sha256": "UNSIGNED-PAYLOAD"], payloadHash: "UNSIGNED-PAYLOAD", date: Self.s3Date)
        let empty = signer.sign(host: "h", path: "/k", headers: ["x-amz-content-sha256": SignatureV4.emptyPayloadHash], date: Self.s3Date)
        #expect(unsigned.canonicalRequest.hasSuffix("\nhost;x-amz-content-sha256;x-amz-date\nUNSIGNED-PAYLOAD"))
        #expect(unsigned.canonicalRequest.contains("x-amz-content-sha256:UNSIGNED-PAYLOAD\n"))
        #expect(unsigned.headers["Authorization"] != empty.headers["Authorization"])
    }

    @Test func theKeyIsEncodedSegmentBySegmentWithSlashesKept() {
        #expect(SignatureV4.encodedPath("/bucket/a dir/x+1 (é).png") == "/bucket/a%20dir/x%2B1%20%28%C3%A9%29.png")
        #expect(SignatureV4.encodedPath("photos//../a~b_c-d.e") == "/photos//../a~b_c-d.e")
        #expect(SignatureV4.canonicalQuery([("versionId", "a/b+c"), ("a", "2"), ("a", "1")]) == "a=1&a=2&versionId=a%2Fb%2Bc")
    }

    @Test func aSessionTokenIsSignedAndSent() {
        let signer = SignatureV4(
            credentials: .init(accessKeyID: "A", secretAccessKey: "S", sessionToken: "TOKEN"), region: "eu-west-1", service: "s3")
        let signed = signer.sign(host: "h", path: "/k", date: Self.s3Date)
        #expect(signed.headers["x-amz-security-token"] == "TOKEN")
        #expect(signed.canonicalRequest.contains("x-amz-security-token:TOKEN\n"))
        #expect(signed.headers["Authorization"]?.contains("SignedHeaders=host;x-amz-date;x-amz-security-token,") == true)
        #expect(!"\(signer.credentials)".contains("S") || !"\(signer.credentials)".contains("TOKEN"))
    }

    @Test func objectRequestsArePathStyleOrVirtualHosted() throws {
        var configuration = S3Configuration()
        configuration.region = "us-east-1"
        configuration.setCredentials(accessKeyID: "A", secretAccessKey: "S")
        let source = try #require(URL(string: "s3://pics/a%20dir/x.png?v%2B1"))
        let object = try #require(S3DataLoader.object(source))
        #expect(object == S3DataLoader.Object(bucket: "pics", key: "a dir/x.png", version: "v+1"))
        let aws = try #require(S3DataLoader.request(for: object, configuration: configuration, date: Self.s3Date))
        #expect(aws.url.absoluteString == "https://pics.s3.us-east-1.amazonaws.com/a%20dir/x.png?versionId=v%2B1")
        configuration.endpoint = S3Configuration.endpoint("127.0.0.1:9000")
        let pathStyle = try #require(S3DataLoader.request(for: object, configuration: configuration, date: Self.s3Date))
        #expect(pathStyle.url.absoluteString == "http://127.0.0.1:9000/pics/a%20dir/x.png?versionId=v%2B1")
        #expect(pathStyle.headers["x-amz-content-sha256"] == SignatureV4.emptyPayloadHash)
        #expect(pathStyle.headers["Authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=A/20130524/us-east-1/s3/aws4_request") == true)
        configuration.endpoint = S3Configuration.endpoint("https://minio.example:443/")
        configuration.usesPathStyle = false
        let virtual = try #require(S3DataLoader.request(for: object, configuration: configuration, date: Self.s3Date))
        #expect(virtual.url.absoluteString == "https://pics.minio.example/a%20dir/x.png?versionId=v%2B1")
        let noKey = try #require(URL(string: "s3://pics/"))
        #expect(S3DataLoader.object(noKey) == nil)
    }

    /// imgproxy's `IMGPROXY_SOURCE_URL_QUERY_SEPARATOR`: `?` by default (the URL's query is the
    /// version), another text cuts the key there, an empty one keeps `?` and what follows in the key.
    @Test func theVersionFollowsTheQuerySeparator() throws {
        let source = try #require(URL(string: "s3://pics/a/x.png?v1"))
        #expect(S3DataLoader.object(source) == S3DataLoader.Object(bucket: "pics", key: "a/x.png", version: "v1"))
        let none = SourceURLQuerySeparator("")
        let whole = try #require(S3DataLoader.object(source, separator: none))
        #expect(whole == S3DataLoader.Object(bucket: "pics", key: "a/x.png?v1", version: nil))
        let request = try #require(S3DataLoader.request(for: whole, configuration: S3Configuration(), date: Self.s3Date))
        #expect(request.url.path(percentEncoded: true).hasSuffix("/a/x.png%3Fv1"), "\(request.url)")
        let semicolon = SourceURLQuerySeparator(";")
        let custom = try #require(URL(string: "s3://pics/a/x.png;v%202"))
        #expect(S3DataLoader.object(custom, separator: semicolon) == S3DataLoader.Object(bucket: "pics", key: "a/x.png", version: "v 2"))
        #expect(S3DataLoader.object(source, separator: semicolon) == S3DataLoader.Object(bucket: "pics", key: "a/x.png?v1", version: nil))
        #expect(S3DataLoader.object(custom) == S3DataLoader.Object(bucket: "pics", key: "a/x.png;v 2", version: nil))
    }
}
#endif
