import Foundation
import Testing

@testable import Imago

/// `Content-Range` and `Accept-Ranges` as servers send them, and as hostile ones might.
@Suite struct ContentRangeTests {
    typealias Range = HTTPHeaderParser.ContentRange

    @Test(
        "Content-Range: byte ranges are read, anything else is refused",
        arguments: [
            ("bytes 0-99/100", Range?.some(.init(first: 0, last: 99, total: 100))),
            ("bytes 500-999/1000", .some(.init(first: 500, last: 999, total: 1_000))),
            ("BYTES 1-1/2", .some(.init(first: 1, last: 1, total: 2))),
            ("  bytes   7-9/10  ", .some(.init(first: 7, last: 9, total: 10))),
            ("bytes 5-9/*", .some(.init(first: 5, last: 9, total: nil))),
            ("bytes 0099-0100/0101", .some(.init(first: 99, last: 100, total: 101))),
            ("bytes */100", nil),  // a 416's form: no range
            ("bytes 9-5/10", nil),  // last before first
            ("bytes 5-10/10", nil),  // last past the end
            ("bytes 5-9/", nil),
            ("bytes 5-/10", nil),
            ("bytes -9/10", nil),
            ("bytes -1-9/10", nil),
            ("bytes +1-9/10", nil),
            ("bytes 1 -9/10", nil),
            ("bytes 1-9/10/11", nil),
            ("bytes 1-9/10 junk", nil),
            ("items 1-9/10", nil),
            ("bytes", nil),
            ("", nil),
            ("bytes 1-٣/10", nil),  // a digit to Unicode, not to HTTP
            ("bytes 0-1/9999999999999999999", nil),  // 19 digits: refused before any overflow
            ("bytes 0-1/999999999999999999", .some(.init(first: 0, last: 1, total: 999_999_999_999_999_999))),
            ("bytes 0-" + String(repeating: "9", count: 80) + "/1", nil),
        ])
    func contentRange(value: String, expected: Range?) {
        #expect(Range(value) == expected)
        if let range = Range(value) { #expect(range.length == range.last - range.first + 1) }
    }

    @Test(arguments: [
        ("bytes", true), ("Bytes", true), ("none, bytes", true), (" bytes ", true), ("none", false), ("", false),
        ("bytesx", false),
    ])
    func acceptRanges(value: String, expected: Bool) {
        #expect(HTTPHeaderParser.acceptsByteRanges(value) == expected)
    }

    @Test func noAcceptRangesFieldMeansNoRanges() {
        #expect(!HTTPHeaderParser.acceptsByteRanges(nil))
    }
}

extension HTTPHeaderParser.ContentRange {
    init(first: Int, last: Int, total: Int?) {
        self = HTTPHeaderParser.ContentRange("bytes \(first)-\(last)/\(total.map(String.init) ?? "*")")!
    }
}
