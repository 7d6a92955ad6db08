import Foundation
import Testing

@testable import Imago

/// The HTTP-date parser (RFC 9110 §5.6.7) on the three forms, the calendar's edges, and text that
/// is not a date: each is read to the exact second or refused, never a trap.
@Suite struct HTTPDateTests {
    /// Sat, 28 Nov 2026 00:00:00 GMT: the reference for two-digit years.
    static let now = Date(timeIntervalSince1970: 1_795_824_000)

    static func seconds(_ text: String, now: Date = now) -> Int64? {
        HTTPDate(text, now: now)?.secondsSince1970
    }

    @Test(
        "The three forms RFC 9110 lists, read to the second",
        arguments: [
            ("Sun, 06 Nov 1994 08:49:37 GMT", Int64(784_111_777)),  // IMF-fixdate
            ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),  // RFC 850
            ("Sun Nov  6 08:49:37 1994", 784_111_777),  // asctime, day as space and digit
            ("Sun Nov 06 08:49:37 1994", 784_111_777),  // asctime, day as two digits
            ("Wed, 21 Oct 2015 07:28:00 GMT", 1_445_412_480),
            ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
            ("Wed, 31 Dec 1969 23:59:59 GMT", -1),
            ("Mon, 01 Jan 0001 00:00:00 GMT", -62_135_596_800),
            ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
            ("  \tSun, 06 Nov 1994 08:49:37 GMT \t ", 784_111_777),  // whitespace around a field value
        ])
    func forms(text: String, expected: Int64) {
        #expect(Self.seconds(text) == expected)
        #expect(HTTPDate(bytes: Array(text.utf8), now: Self.now)?.secondsSince1970 == expected)
    }

    @Test(
        "Leap years: 29 February exists only in them; second 60 is the next minute's first",
        arguments: [
            ("Thu, 29 Feb 2024 12:00:00 GMT", Int64?.some(1_709_208_000)),
            ("Tue, 29 Feb 2000 00:00:00 GMT", .some(951_782_400)),  // divisible by 400
            ("Thu, 29 Feb 1900 00:00:00 GMT", nil),  // divisible by 100 only
            ("Wed, 29 Feb 2023 00:00:00 GMT", nil),
            ("Thursday, 29-Feb-24 12:00:00 GMT", .some(1_709_208_000)),
            ("Thu Feb 29 12:00:00 2024", .some(1_709_208_000)),
            ("Wed Feb 29 12:00:00 2023", nil),
            ("Wed, 31 Dec 2008 23:59:60 GMT", .some(1_230_768_000)),
        ])
    func leapYears(text: String, expected: Int64?) {
        #expect(Self.seconds(text) == expected)
    }

    @Test(
        "RFC 850's two-digit year: in this century unless more than 50 years ahead (RFC 9110 §5.6.7)",
        arguments: [
            ("Saturday, 28-Nov-26 00:00:00 GMT", Int64(1_795_824_000)),  // now
            ("Saturday, 01-Jan-00 00:00:00 GMT", 946_684_800),
            ("Friday, 10-Jan-76 00:00:00 GMT", 3_345_840_000),  // 2076: 49 years and 10 months ahead
            ("Friday, 10-Dec-76 00:00:00 GMT", 219_024_000),  // 2076 would be more than 50 years ahead: 1976
            ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
        ])
    func twoDigitYears(text: String, expected: Int64) {
        #expect(Self.seconds(text) == expected)
    }

    @Test("The century of a two-digit year follows the clock it is read by")
    func twoDigitYearsFollowTheClock() {
        let in1990 = Date(timeIntervalSince1970: 631_152_000)  // 1 Jan 1990
        #expect(Self.seconds("Sunday, 06-Nov-94 08:49:37 GMT", now: in1990) == 784_111_777)
        // From 1990, "-45" is 2045 (55 years ahead): read as 1945.
        #expect(HTTPDate("Monday, 01-Jan-45 00:00:00 GMT", now: in1990).map { $0 < HTTPDate(secondsSince1970: 0) } == true)
        // Any clock, however absurd, gives an answer or nil, never a trap.
        for clock in [Date.distantPast, .distantFuture, Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: 1e300)] {
            _ = HTTPDate("Sunday, 06-Nov-94 08:49:37 GMT", now: clock)
        }
    }

    @Test(
        "Out-of-range fields are refused",
        arguments: [
            "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 32 Jan 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:37 GMT", "Sun, 06 Nov 1994 08:49:61 GMT",
            "Sun, 06 Nov 1994 99:99:99 GMT", "Sunday, 31-Apr-94 08:49:37 GMT", "Sun Nov 31 08:49:37 1994",
            "Sun Nov  0 08:49:37 1994",
        ])
    func outOfRange(text: String) {
        #expect(Self.seconds(text) == nil, "\(text)")
    }

    @Test(
        "Text that is not one of the three forms is refused",
        arguments: [
            "", " ", "\t\t", "0", "soon", "Sun, 06 Nov 1994 08:49:37 GMT x", "Sun, 06 Nov 1994 08:49:37 GMT\0",
            "x Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nov 1994 08:49:37 +0000", "Sun, 06 Nov 1994 08:49:37 gmt", "sun, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 nov 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun, 06 Nov 01994 08:49:37 GMT", "Sun,  06 Nov 1994 08:49:37 GMT", "Sun 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 08-49-37 GMT",
            "Sun, 06 Nov 1994 08:49:37.5 GMT", "Sun, 06 Nov 1994T08:49:37 GMT", "1994-11-06T08:49:37Z",
            "Sun, -6 Nov 1994 08:49:37 GMT", "Sun, +6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov +994 08:49:37 GMT",
            "Sun, 06 Nov 292277026596 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun, 06-Nov-94 08:49:37 GMT",
            "Sunday 06-Nov-94 08:49:37 GMT", "Sundae, 06-Nov-94 08:49:37 GMT", "Sun Nov 6 08:49:37 1994",
            "Sun Nov  6 08:49:37 94", "Sun Nov  6 08:49:37 1994 GMT", "Sun Nov   6 08:49:37 1994",
            "Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:37 GMT",
            "Wéd, 21 Oct 2015 07:28:30 GMT", "Sun, 06 Nov 1994 08:49:37 GMT\u{A0}", "Sun, 06 Nov 1994 08:49:37 ＧＭＴ",
            "Sun, ٠٦ Nov 1994 08:49:37 GMT",  // Arabic-Indic digits: digits to Unicode, not to HTTP
            "Sun, 06 Nov 1994 08:49:37 GMT" + String(repeating: " ", count: 200),
            String(repeating: " ", count: 10_000) + "Sun, 06 Nov 1994 08:49:37 GMT",
            String(repeating: "Sun, 06 Nov 1994 08:49:37 GMT", count: 1_000),
        ])
    func malformed(text: String) {
        #expect(Self.seconds(text) == nil, "\(text.prefix(80))")
    }

    @Test("Bytes outside ASCII and outside UTF-8 are refused, never a trap")
    func hostileBytes() {
        let date = Array("Sun, 06 Nov 1994 08:49:37 GMT".utf8)
        for position in date.indices {
            for byte: UInt8 in [0x00, 0x7F, 0x80, 0xC3, 0xFF] {
                var bytes = date
                bytes[position] = byte
                #expect(HTTPDate(bytes: bytes, now: Self.now) == nil)
            }
        }
        // The input that made Foundation's formatter trap (Fuzz/http-headers/crashes).
        #expect(HTTPDate(HTTPHeaderParserTests.fuzzedDateOutsideASCII, now: Self.now) == nil)
        // Every prefix of a date, and of each form, is refused or read; none traps.
        for text in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            let bytes = Array(text.utf8)
            for end in 0..<bytes.count { #expect(HTTPDate(bytes: bytes[..<end], now: Self.now) == nil) }
        }
    }

    @Test("The day name need not match the date (servers get it wrong; it adds nothing)")
    func dayNameIsNotChecked() {
        #expect(Self.seconds("Mon, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
    }

    @Test("IMF-fixdate written as servers write it, and read back")
    func formatting() {
        #expect(HTTPDate.imfFixdate(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.imfFixdate(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.imfFixdate(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(HTTPDate.imfFixdate(Date(timeIntervalSince1970: 1_709_208_000)) == "Thu, 29 Feb 2024 12:00:00 GMT")
        #expect(HTTPDate.imfFixdate(Date(timeIntervalSince1970: 1e15)) == "Fri, 31 Dec 9999 23:59:59 GMT")  // clamped
        // Round trip over a spread of seconds, a leap day and both sides of 1970 among them.
        var seconds: Int64 = -62_135_596_800
        while seconds < 253_402_300_799 {
            let text = HTTPDate.imfFixdate(Date(timeIntervalSince1970: TimeInterval(seconds)))
            #expect(HTTPDate(text)?.secondsSince1970 == seconds, "\(text)")
            seconds += 7_777_777_777
        }
    }

    @Test("Retry-After reads its date through the same parser")
    func retryAfterUsesTheParser() {
        let now = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPHeaderParser.retryAfter("Sun, 06 Nov 1994 08:50:37 GMT", now: now) == .seconds(60))
        #expect(HTTPHeaderParser.retryAfter("Sunday, 06-Nov-94 08:50:37 GMT", now: now) == .seconds(60))
        #expect(HTTPHeaderParser.retryAfter("Sun Nov  6 08:50:37 1994", now: now) == .seconds(60))
        #expect(HTTPHeaderParser.retryAfter("Sun, 06 Nov 1994 08:50:37 GMT junk", now: now) == nil)
    }
}
