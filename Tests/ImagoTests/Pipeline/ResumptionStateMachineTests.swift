import Foundation
import Testing

@testable import Imago

/// When a download can be resumed, what is sent to resume it, and what each answer means, without
/// a server or a clock.
@Suite("Resumption state machine")
struct ResumptionStateMachineTests {
    static let url = URL(string: "http://127.0.0.1/a.jpg")!
    static let whole = Data((0..<100).map { UInt8($0) })
    static let kept = ResumableData(data: whole.prefix(40), totalLength: 100, etag: "\"v1\"", lastModified: nil)

    static func head(_ status: Int, _ headers: [String: String], body: Data) -> DataLoader.Response {
        DataLoader.Response(data: body, statusCode: status, headers: headers)
    }

    static let resumableHead = ["accept-ranges": "bytes", "etag": "\"v1\"", "content-length": "100"]

    func machine(_ partial: ResumableData? = kept, headers: [String: String] = [:]) -> ResumptionStateMachine {
        ResumptionStateMachine(url: Self.url, requestHeaders: headers, partial: partial)
    }

    // MARK: What is kept

    @Test("A 200 with Accept-Ranges, a strong ETag and a length is kept, exactly as it arrived")
    func keepsAResumableResponse() {
        let received = Self.head(200, Self.resumableHead, body: Self.whole.prefix(50))
        let kept = machine(nil).resumableData(from: received)
        #expect(kept == ResumableData(data: Self.whole.prefix(50), totalLength: 100, etag: "\"v1\"", lastModified: nil))
        #expect(kept?.range == "bytes=50-")
        #expect(kept?.ifRange == "\"v1\"")
    }

    @Test("Last-Modified alone is enough when it is strong (a second or more before Date), and goes in If-Range")
    func keepsWithLastModified() {
        let date = "Wed, 21 Oct 2015 07:28:00 GMT"
        let headers = ["accept-ranges": "bytes", "last-modified": date, "content-length": "100", "date": "Wed, 21 Oct 2015 07:28:01 GMT"]
        #expect(machine(nil).resumableData(from: Self.head(200, headers, body: Self.whole.prefix(10)))?.ifRange == date)
    }

    @Test(
        "A weak Last-Modified (RFC 9110 §8.8.2.2) is not kept: the file may change within its second",
        arguments: [
            ("no Date", nil as String?),
            ("the same second", "Wed, 21 Oct 2015 07:28:00 GMT"),
            ("a Date before it", "Wed, 21 Oct 2015 07:27:59 GMT"),
            ("an unreadable Date", "yesterday"),
            ("a Date with junk after it", "Wed, 21 Oct 2015 07:29:00 GMT x"),
        ])
    func refusesAWeakLastModified(_ reason: String, date: String?) {
        var headers = ["accept-ranges": "bytes", "last-modified": "Wed, 21 Oct 2015 07:28:00 GMT", "content-length": "100"]
        headers["date"] = date
        #expect(machine(nil).resumableData(from: Self.head(200, headers, body: Self.whole.prefix(10))) == nil, "\(reason)")
        // Nor is an unreadable Last-Modified, whatever the Date.
        headers["last-modified"] = "21 Oct 2015"
        headers["date"] = "Thu, 22 Oct 2015 07:28:00 GMT"
        #expect(machine(nil).resumableData(from: Self.head(200, headers, body: Self.whole.prefix(10))) == nil)
    }

    @Test("The strong-date rule in each HTTP-date form")
    func strongDates() {
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(ResumptionStateMachine.isStrong(lastModified: modified, date: "Sun, 06 Nov 1994 08:49:38 GMT"))
        #expect(ResumptionStateMachine.isStrong(lastModified: modified, date: "Sun Nov  6 08:49:38 1994"))
        #expect(ResumptionStateMachine.isStrong(lastModified: "Sunday, 06-Nov-94 08:49:37 GMT", date: "Sun, 06 Nov 1994 08:50:00 GMT"))
        #expect(!ResumptionStateMachine.isStrong(lastModified: modified, date: "Sun Nov  6 08:49:37 1994"))
        #expect(!ResumptionStateMachine.isStrong(lastModified: modified, date: nil))
    }

    @Test(
        "What cannot be resumed is not kept",
        arguments: [
            ("no Accept-Ranges", ["etag": "\"v1\"", "content-length": "100"], 200, 50),
            ("Accept-Ranges: none", ["accept-ranges": "none", "etag": "\"v1\"", "content-length": "100"], 200, 50),
            ("no validator", ["accept-ranges": "bytes", "content-length": "100"], 200, 50),
            ("a weak ETag", ["accept-ranges": "bytes", "etag": "W/\"v1\"", "content-length": "100"], 200, 50),
            (
                "a weak ETag beside Last-Modified",
                ["accept-ranges": "bytes", "etag": "W/\"v1\"", "last-modified": "Wed, 21 Oct 2015 07:28:00 GMT", "content-length": "100"],
                200, 50
            ),
            ("no length", ["accept-ranges": "bytes", "etag": "\"v1\""], 200, 50),
            ("a coded body", ["accept-ranges": "bytes", "etag": "\"v1\"", "content-length": "100", "content-encoding": "gzip"], 200, 50),
            ("no-store", ["accept-ranges": "bytes", "etag": "\"v1\"", "content-length": "100", "cache-control": "no-store"], 200, 50),
            ("nothing arrived", ["accept-ranges": "bytes", "etag": "\"v1\"", "content-length": "100"], 200, 0),
            ("a 203", ["accept-ranges": "bytes", "etag": "\"v1\"", "content-length": "100"], 203, 50),
            ("an unreadable ETag", ["accept-ranges": "bytes", "etag": "\"v\u{1}\"", "content-length": "100"], 200, 50),
        ] as [(String, [String: String], Int, Int)])
    func refusesToKeep(_ reason: String, headers: [String: String], status: Int, bytes: Int) {
        #expect(machine(nil).resumableData(from: Self.head(status, headers, body: Self.whole.prefix(bytes))) == nil, "\(reason)")
    }

    @Test("A request with its own Range, If-Range or conditional headers is neither resumed nor kept")
    func callerHeadersTurnItOff() {
        for name in ["Range", "if-range", "If-None-Match", "If-Modified-Since", "If-Match"] {
            let machine = machine(headers: [name: "x"])
            #expect(machine.partial == nil)
            #expect(machine.headers(adding: [name: "x"]) == [name: "x"])
            #expect(machine.resumableData(from: Self.head(200, Self.resumableHead, body: Self.whole.prefix(50))) == nil)
        }
    }

    // MARK: What is sent

    @Test("Resuming sends Range from the first missing byte and If-Range with the validator")
    func resumingHeaders() {
        #expect(machine().headers(adding: ["Accept": "image/*"]) == ["Accept": "image/*", "Range": "bytes=40-", "If-Range": "\"v1\""])
        #expect(machine(nil).headers(adding: ["Accept": "image/*"]) == ["Accept": "image/*"])
    }

    // MARK: What the answer means

    @Test("A 206 that continues the kept bytes makes the whole body")
    func joinsA206() {
        let rest = Self.whole.dropFirst(40)
        let headers = ["content-range": "bytes 40-99/100", "etag": "\"v1\"", "content-length": "60"]
        #expect(machine().response(statusCode: 206, headers: headers, body: Data(rest)) == .resumed(Self.whole))
    }

    @Test("A 200 is the whole body, whatever was kept")
    func a200StartsOver() {
        #expect(machine().response(statusCode: 200, headers: Self.resumableHead, body: Self.whole) == .whole)
        #expect(machine(nil).response(statusCode: 200, headers: Self.resumableHead, body: Self.whole) == .whole)
    }

    @Test(
        "An inconsistent 206 drops the kept bytes and starts again",
        arguments: [
            ("another start", ["content-range": "bytes 39-99/100", "etag": "\"v1\""], 61),
            ("a later start", ["content-range": "bytes 41-99/100", "etag": "\"v1\""], 59),
            ("another total", ["content-range": "bytes 40-119/120", "etag": "\"v1\""], 80),
            ("an unknown total", ["content-range": "bytes 40-99/*", "etag": "\"v1\""], 60),
            ("a range short of the end", ["content-range": "bytes 40-89/100", "etag": "\"v1\""], 50),
            ("no Content-Range", ["etag": "\"v1\""], 60),
            ("an unreadable Content-Range", ["content-range": "bytes 40-99/1OO", "etag": "\"v1\""], 60),
            ("another ETag", ["content-range": "bytes 40-99/100", "etag": "\"v2\""], 60),
            ("a coded body", ["content-range": "bytes 40-99/100", "etag": "\"v1\"", "content-encoding": "gzip"], 60),
            ("a body shorter than its range", ["content-range": "bytes 40-99/100", "etag": "\"v1\""], 59),
            ("no ETag: which version the bytes come from is unknown", ["content-range": "bytes 40-99/100"], 60),
            ("a weak ETag of the same opaque tag", ["content-range": "bytes 40-99/100", "etag": "W/\"v1\""], 60),
            ("an unreadable ETag", ["content-range": "bytes 40-99/100", "etag": "\"v\u{1}1\""], 60),
        ] as [(String, [String: String], Int)])
    func restarts(_ reason: String, headers: [String: String], bodyLength: Int) {
        let action = machine().response(statusCode: 206, headers: headers, body: Data(repeating: 1, count: bodyLength))
        guard case .restart = action else {
            Issue.record("\(reason): \(action)")
            return
        }
    }

    @Test(
        "A 206 with another Last-Modified, or none, when that was the validator, starts again",
        arguments: [
            ["content-range": "bytes 40-99/100", "last-modified": "Thu, 22 Oct 2015 07:28:00 GMT"],
            ["content-range": "bytes 40-99/100"],
            ["content-range": "bytes 40-99/100", "etag": "\"v1\""],
        ])
    func restartsOnAnotherDate(headers: [String: String]) {
        let kept = ResumableData(data: Self.whole.prefix(40), totalLength: 100, etag: nil, lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
        guard case .restart = machine(kept).response(statusCode: 206, headers: headers, body: Data(Self.whole.dropFirst(40))) else {
            Issue.record("a 206 that does not carry the date sent was joined: \(headers)")
            return
        }
        // The same date joins.
        let same = ["content-range": "bytes 40-99/100", "last-modified": "Wed, 21 Oct 2015 07:28:00 GMT"]
        #expect(machine(kept).response(statusCode: 206, headers: same, body: Data(Self.whole.dropFirst(40))) == .resumed(Self.whole))
    }

    @Test("A 206 to a request that asked for no range is an error, never the whole body")
    func anUnrequested206Fails() {
        let headers = ["content-range": "bytes 0-49/100", "etag": "\"v1\"", "content-length": "50"]
        let body = Data(Self.whole.prefix(50))
        #expect(machine(nil).response(statusCode: 206, headers: headers, body: body) == .fail(.httpStatus(Self.url, statusCode: 206)))
        // Even one that claims to hold everything: nobody asked for a part.
        let all = ["content-range": "bytes 0-99/100", "etag": "\"v1\""]
        #expect(machine(nil).response(statusCode: 206, headers: all, body: Self.whole) == .fail(.httpStatus(Self.url, statusCode: 206)))
        // Kept bytes that cannot be resumed (no validator) send no Range either.
        let unresumable = ResumableData(data: Self.whole.prefix(40), totalLength: 100, etag: nil, lastModified: nil)
        #expect(machine(unresumable).partial == nil)
        #expect(machine(unresumable).headers(adding: [:]) == [:])
        #expect(machine(unresumable).response(statusCode: 206, headers: headers, body: body) == .fail(.httpStatus(Self.url, statusCode: 206)))
        // The caller's own Range: the part is theirs, as it came.
        #expect(machine(headers: ["Range": "bytes=0-49"]).response(statusCode: 206, headers: headers, body: body) == .whole)
    }

    // MARK: Progress, and a resumed attempt cut again

    @Test("Progress counts from the resumed byte")
    func progressFromTheResumedByte() {
        let headers = ["content-range": "bytes 40-99/100", "etag": "\"v1\"", "content-length": "60"]
        let received = Self.head(206, headers, body: Data(Self.whole.dropFirst(40).prefix(10)))
        #expect(machine().progress(of: received) == ImageTask.Progress(completed: 50, total: 100))
        // A 200 counts from zero.
        #expect(machine().progress(of: Self.head(200, Self.resumableHead, body: Self.whole.prefix(10)))
            == ImageTask.Progress(completed: 10, total: 100))
    }

    @Test("A resumed attempt that stops early keeps the old bytes and the new ones together")
    func keepsAcrossTwoCuts() {
        let headers = ["content-range": "bytes 40-99/100", "etag": "\"v1\"", "content-length": "60"]
        let received = Self.head(206, headers, body: Data(Self.whole.dropFirst(40).prefix(20)))
        #expect(machine().resumableData(from: received) == ResumableData(data: Self.whole.prefix(60), totalLength: 100, etag: "\"v1\"", lastModified: nil))
        // Not when the 206 itself was inconsistent.
        let wrong = Self.head(206, ["content-range": "bytes 41-99/100", "etag": "\"v1\""], body: Data(repeating: 0, count: 20))
        #expect(machine().resumableData(from: wrong) == nil)
    }
}
