#if os(Linux)
import Foundation

extension ServeEnvironment {
    /// `IMGPROXY_USE_S3` with `IMGPROXY_S3_REGION` (else `AWS_REGION`, else `AWS_DEFAULT_REGION`,
    /// else imgproxy's `us-west-1`), `IMGPROXY_S3_ENDPOINT`, `IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE`
    /// (default true) and the AWS SDK's `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_SESSION_TOKEN`; `nil` unless S3 is on. Errors never repeat a credential.
    static func s3(_ reader: Reader) throws(ServeEnvironmentError) -> S3Configuration? {
        guard try reader.boolean("IMGPROXY_USE_S3") == true else { return nil }
        var s3 = S3Configuration()
        if let region = reader.text("IMGPROXY_S3_REGION") ?? reader.text("AWS_REGION") ?? reader.text("AWS_DEFAULT_REGION") {
            s3.region = region
        }
        if let text = reader.text("IMGPROXY_S3_ENDPOINT") {
            guard let endpoint = S3Configuration.endpoint(text) else {
                throw ServeEnvironmentError(variable: "IMGPROXY_S3_ENDPOINT", message: "takes an http(s) URL or HOST:PORT, not \"\(text)\"")
            }
            s3.endpoint = endpoint
        }
        if let pathStyle = try reader.boolean("IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE") { s3.usesPathStyle = pathStyle }
        switch (reader.text("AWS_ACCESS_KEY_ID"), reader.text("AWS_SECRET_ACCESS_KEY")) {
        case (let key?, let secret?):
            s3.setCredentials(accessKeyID: key, secretAccessKey: secret, sessionToken: reader.text("AWS_SESSION_TOKEN"))
        case (nil, nil):
            break  // unsigned requests: public buckets
        case (nil, _?):
            throw ServeEnvironmentError(variable: "AWS_ACCESS_KEY_ID", message: "is unset while AWS_SECRET_ACCESS_KEY is set; set both or neither")
        case (_?, nil):
            throw ServeEnvironmentError(variable: "AWS_SECRET_ACCESS_KEY", message: "is unset while AWS_ACCESS_KEY_ID is set; set both or neither")
        }
        return s3
    }

    /// `IMGPROXY_FALLBACK_IMAGE_DATA` (base64), else `_PATH` (read now, as imgproxy reads it at
    /// start), else `_URL`; with `IMGPROXY_FALLBACK_IMAGE_HTTP_CODE` (0, or 100 to 599; default
    /// 200) and `IMGPROXY_FALLBACK_IMAGE_TTL` (seconds, 0: the usual `max-age`). `nil` when none
    /// of them is set.
    static func fallbackImage(_ reader: Reader) throws(ServeEnvironmentError) -> FallbackImage? {
        var fallback = FallbackImage()
        if let text = reader.text("IMGPROXY_FALLBACK_IMAGE_DATA") {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !data.isEmpty else {
                throw ServeEnvironmentError(variable: "IMGPROXY_FALLBACK_IMAGE_DATA", message: "takes the image's bytes in base64")
            }
            fallback.source = .data(data)
        } else if let path = reader.text("IMGPROXY_FALLBACK_IMAGE_PATH") {
            guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else {
                throw ServeEnvironmentError(variable: "IMGPROXY_FALLBACK_IMAGE_PATH", message: "names no readable, non-empty file: \"\(path)\"")
            }
            fallback.source = .data(data)
        } else if let text = reader.text("IMGPROXY_FALLBACK_IMAGE_URL") {
            guard let url = URL(string: text), url.scheme != nil else {
                throw ServeEnvironmentError(variable: "IMGPROXY_FALLBACK_IMAGE_URL", message: "takes a URL, not \"\(text)\"")
            }
            fallback.source = .url(url)
        }
        let status = try reader.integer("IMGPROXY_FALLBACK_IMAGE_HTTP_CODE", in: 0...599)
        if let status, status != 0, status < 100 {
            throw ServeEnvironmentError(variable: "IMGPROXY_FALLBACK_IMAGE_HTTP_CODE", message: "takes 0 or a status from 100 to 599, not \(status)")
        }
        let ttl = try reader.integer("IMGPROXY_FALLBACK_IMAGE_TTL", in: 0...Int(Int32.max))
        guard fallback.source != nil || status != nil || ttl != nil else { return nil }
        if let status { fallback.statusCode = status }
        if let ttl { fallback.ttl = ttl }
        return fallback
    }
}
#endif
