import Foundation
@testable import Imago
import ImagoTestSupport
import Testing

@Suite("Retry policy")
struct RetryPolicyTests {
    static let url = URL(string: "http://127.0.0.1/a.jpg")!

    @Test(
        "Transient failures are retried",
        arguments: [
            ImagePipeline.Error.connectionFailed(url, reason: "refused"),
            .timedOut(url, .stall, after: .seconds(1)),
            .timedOut(url, .connect, after: .seconds(1)),
            .httpStatus(url, statusCode: 408),
            .httpStatus(url, statusCode: 429),
            .httpStatus(url, statusCode: 500),
            .httpStatus(url, statusCode: 503),
        ])
    func retried(error: ImagePipeline.Error) {
        var generator = SplitMix(seed: 1)
        #expect(RetryPolicy().delay(after: error, attempt: 1, using: &generator) != nil)
    }

    @Test(
        "Failures a second try cannot cure are final",
        arguments: [
            ImagePipeline.Error.httpStatus(url, statusCode: 400),
            .httpStatus(url, statusCode: 403),
            .httpStatus(url, statusCode: 404),
            .httpStatus(url, statusCode: 410),
            .decodingFailed(url, .jpeg, reason: "truncated"),
            .unsupportedFormat(url, detail: "HTML"),
            .bodyTooLarge(url, limit: 10),
            .cancelled(url),
            .unsupportedScheme(url),
        ])
    func notRetried(error: ImagePipeline.Error) {
        var generator = SplitMix(seed: 1)
        #expect(RetryPolicy().delay(after: error, attempt: 1, using: &generator) == nil)
    }

    @Test("Attempts stop at the maximum")
    func stopsAtMaximum() {
        var generator = SplitMix(seed: 2)
        let policy = RetryPolicy(maximumAttempts: 3)
        let error = ImagePipeline.Error.httpStatus(Self.url, statusCode: 503)
        #expect(policy.delay(after: error, attempt: 1, using: &generator) != nil)
        #expect(policy.delay(after: error, attempt: 2, using: &generator) != nil)
        #expect(policy.delay(after: error, attempt: 3, using: &generator) == nil)
        #expect(RetryPolicy.never.delay(after: error, attempt: 1, using: &generator) == nil)
    }

    @Test("Waits are full-jittered below an exponential step and the cap")
    func backOff() {
        var generator = SplitMix(seed: 3)
        let policy = RetryPolicy(maximumAttempts: 20, baseDelay: .milliseconds(100), maximumDelay: .seconds(2))
        let error = ImagePipeline.Error.connectionFailed(Self.url, reason: "reset")
        for attempt in 1..<20 {
            let step = min(Duration.seconds(2), .milliseconds(100) * (1 << (attempt - 1)))
            var delays: [Duration] = []
            for _ in 0..<50 {
                delays.append(policy.delay(after: error, attempt: attempt, using: &generator)!)
            }
            #expect(delays.allSatisfy { $0 >= .zero && $0 <= step })
            // Full jitter spreads the waits over the whole step, not near its top.
            #expect(delays.min()! < step / 2 && delays.max()! > step / 2)
        }
    }

    @Test("Retry-After wins when longer, and a wait longer than allowed fails the load")
    func retryAfter() {
        var generator = SplitMix(seed: 4)
        let policy = RetryPolicy(baseDelay: .milliseconds(10), maximumRetryAfter: .seconds(30))
        let polite = ImagePipeline.Error.httpStatus(Self.url, statusCode: 429, retryAfter: .seconds(3))
        #expect(policy.delay(after: polite, attempt: 1, using: &generator) == .seconds(3))
        let greedy = ImagePipeline.Error.httpStatus(Self.url, statusCode: 503, retryAfter: .seconds(120))
        #expect(policy.delay(after: greedy, attempt: 1, using: &generator) == nil)
    }
}

@Suite("Retry-After parsing")
struct RetryAfterParsingTests {
    @Test(
        "Delta-seconds and HTTP dates become waits; nonsense is ignored",
        arguments: [
            ("120", Duration?.some(.seconds(120))),
            (" 0 ", .some(.zero)),
            ("Wed, 21 Oct 2015 07:28:30 GMT", .some(.seconds(30))),
            ("Wed, 21 Oct 2015 07:27:00 GMT", .some(.zero)),
            ("-5", nil),
            ("soon", nil),
        ])
    func parse(value: String, expected: Duration?) {
        let now = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
        #expect(DownloadValidator.retryAfter(value, now: now) == expected)
    }
}
