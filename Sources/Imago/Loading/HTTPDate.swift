import Foundation

/// An HTTP date (RFC 9110 §5.6.7), read from a server's bytes by a bounded parser of our own
/// instead of Foundation's `DateFormatter` (which trapped on some input outside ASCII on Linux, and
/// whose behaviour on every other input nobody can bound).
///
/// The three forms recipients must accept, exactly as the grammar spells them (names are
/// case-sensitive, single spaces, `GMT`):
/// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
/// - RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT` (two-digit year: see ``init(_:now:)``)
/// - asctime: `Sun Nov  6 08:49:37 1994`
///
/// The day name must be one of the seven but need not match the date (servers get it wrong, and it
/// adds nothing). Out-of-range fields (`31 Feb`, `29 Feb` of a common year, hour 24, minute 60) are
/// refused; second 60, a leap second, is read as the next minute's first. Spaces and tabs around
/// the value are ignored (up to 64 bytes of them); anything else around it, or a date longer than
/// ``maximumLength`` bytes, is refused.
/// The parser reads each byte at most a few times, and every number it computes is bounded by the
/// fields' digit counts (years 0–9999), so no input can make it loop long or overflow.
package struct HTTPDate: Sendable, Hashable, Comparable {
    /// Seconds since 1970-01-01 00:00:00 UTC.
    package let secondsSince1970: Int64

    /// The longest value read, after surrounding whitespace: every form is 24 to 33 bytes long.
    static let maximumLength = 40

    package var date: Date { Date(timeIntervalSince1970: TimeInterval(secondsSince1970)) }

    package init(secondsSince1970: Int64) {
        self.secondsSince1970 = secondsSince1970
    }

    /// Reads an HTTP date; `nil` for anything that is not one of the three forms.
    ///
    /// An RFC 850 date's two-digit year is read as RFC 9110 §5.6.7 requires: in the century of
    /// `now`, unless that makes it more than 50 years after `now`, in which case the century before.
    package init?(_ value: some StringProtocol, now: Date = Date()) {
        self.init(bytes: value.utf8, now: now)
    }

    /// ``init(_:now:)`` on raw bytes (any bytes: nothing outside printable ASCII is ever accepted).
    package init?<Bytes: Collection<UInt8>>(bytes: Bytes, now: Date = Date()) {
        // Copy at most a bounded prefix: whitespace around a date is allowed, pages of it are not.
        let window = Array(bytes.prefix(Self.maximumLength + 64))
        guard window.count < Self.maximumLength + 64 else { return nil }
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let start = window.firstIndex(where: { !isSpace($0) }), let last = window.lastIndex(where: { !isSpace($0) })
        else { return nil }
        let text = Array(window[start...last])
        guard text.count <= Self.maximumLength else { return nil }
        let fields = Self.imfFixdate(text) ?? Self.rfc850(text, now: now) ?? Self.asctime(text)
        guard let fields, let seconds = fields.secondsSince1970 else { return nil }
        self.init(secondsSince1970: seconds)
    }

    package static func < (lhs: HTTPDate, rhs: HTTPDate) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }

    // MARK: - The three forms

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func imfFixdate(_ text: [UInt8]) -> Fields? {
        var cursor = Cursor(text)
        guard cursor.name(from: shortDayNames) != nil, cursor.literal(", "),
            let day = cursor.digits(2), cursor.literal(" "), let month = cursor.name(from: monthNames), cursor.literal(" "),
            let year = cursor.digits(4), cursor.literal(" "), let time = cursor.timeOfDay(), cursor.literal(" GMT"), cursor.isAtEnd
        else { return nil }
        return Fields(year: year, month: month + 1, day: day, time: time)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    private static func rfc850(_ text: [UInt8], now: Date) -> Fields? {
        var cursor = Cursor(text)
        guard cursor.name(from: longDayNames) != nil, cursor.literal(", "),
            let day = cursor.digits(2), cursor.literal("-"), let month = cursor.name(from: monthNames), cursor.literal("-"),
            let twoDigitYear = cursor.digits(2), cursor.literal(" "), let time = cursor.timeOfDay(), cursor.literal(" GMT"),
            cursor.isAtEnd
        else { return nil }
        // In now's century, or the one before when that is more than 50 years ahead (RFC 9110 §5.6.7).
        let reference = Fields(now: now)
        var fields = Fields(year: reference.year - reference.year % 100 + twoDigitYear, month: month + 1, day: day, time: time)
        var horizon = reference
        horizon.year += 50
        horizon.day = min(horizon.day, daysInMonth(horizon.month, of: horizon.year))  // 29 Feb of a common year
        if let candidate = fields.secondsSince1970, let limit = horizon.secondsSince1970, candidate > limit {
            fields.year -= 100
        }
        return fields
    }

    /// `Sun Nov  6 08:49:37 1994` (the day as two digits, or a space and one digit)
    private static func asctime(_ text: [UInt8]) -> Fields? {
        var cursor = Cursor(text)
        guard cursor.name(from: shortDayNames) != nil, cursor.literal(" "), let month = cursor.name(from: monthNames),
            cursor.literal(" ")
        else { return nil }
        let day = cursor.literal(" ") ? cursor.digits(1) : cursor.digits(2)
        guard let day, cursor.literal(" "), let time = cursor.timeOfDay(), cursor.literal(" "), let year = cursor.digits(4),
            cursor.isAtEnd
        else { return nil }
        return Fields(year: year, month: month + 1, day: day, time: time)
    }

    // MARK: - Calendar

    private static let shortDayNames: [[UInt8]] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { Array($0.utf8) }
    private static let longDayNames: [[UInt8]] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        .map { Array($0.utf8) }
    private static let monthNames: [[UInt8]] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { Array($0.utf8) }

    static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// Days of `month` (1–12) in `year` (proleptic Gregorian).
    static func daysInMonth(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a civil date (Howard Hinnant's `days_from_civil`, proleptic Gregorian).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// A date's fields, checked only when turned into seconds.
    private struct Fields {
        var year: Int
        var month: Int
        var day: Int
        var time: (hour: Int, minute: Int, second: Int)

        init(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int)) {
            self.year = year
            self.month = month
            self.day = day
            self.time = time
        }

        /// The fields of `now` in UTC (Hinnant's `civil_from_days`), its seconds clamped to ±4·10^11
        /// (about 12,000 years) so that no `Date` can overflow what follows, even where `Int` has
        /// 32 bits (the days then fit).
        init(now: Date) {
            let interval = now.timeIntervalSince1970
            let seconds = interval.isNaN ? 0 : Int64(min(max(interval, -4e11), 4e11).rounded(.down))
            let wholeDays = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            let secondOfDay = Int(seconds - wholeDays * 86_400)
            let days = Int(wholeDays)
            let z = days + 719_468
            let era = (z >= 0 ? z : z - 146_096) / 146_097
            let dayOfEra = z - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let shiftedMonth = (5 * dayOfYear + 2) / 153
            month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
            year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
            day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
            time = (secondOfDay / 3_600, secondOfDay % 3_600 / 60, secondOfDay % 60)
        }

        /// Seconds since 1970, or `nil` when a field is out of range.
        var secondsSince1970: Int64? {
            guard (1...12).contains(month), (1...HTTPDate.daysInMonth(month, of: year)).contains(day),
                (0...23).contains(time.hour), (0...59).contains(time.minute), (0...60).contains(time.second)
            else { return nil }
            let days = HTTPDate.days(year: year, month: month, day: day)
            return Int64(days) * 86_400 + Int64(time.hour * 3_600 + time.minute * 60 + time.second)
        }
    }

    /// Reads `text` from the front, one expected piece at a time.
    private struct Cursor {
        let text: [UInt8]
        var index = 0

        init(_ text: [UInt8]) {
            self.text = text
        }

        var isAtEnd: Bool { index == text.count }

        /// Consumes `literal` when the text continues with it.
        mutating func literal(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard text.count - index >= count else { return false }
            let matches = literal.withUTF8Buffer { expected in
                expected.indices.allSatisfy { text[index + $0] == expected[$0] }
            }
            if matches { index += count }
            return matches
        }

        /// Consumes the first of `names` the text continues with; its position in `names`.
        mutating func name(from names: [[UInt8]]) -> Int? {
            for (position, name) in names.enumerated() where text.count - index >= name.count {
                if text[index..<(index + name.count)].elementsEqual(name) {
                    index += name.count
                    return position
                }
            }
            return nil
        }

        /// Consumes exactly `count` ASCII digits (at most 4: the value stays small).
        mutating func digits(_ count: Int) -> Int? {
            guard text.count - index >= count else { return nil }
            var value = 0
            for byte in text[index..<(index + count)] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }

        /// `hh:mm:ss`, each two digits (ranges are checked later).
        mutating func timeOfDay() -> (hour: Int, minute: Int, second: Int)? {
            guard let hour = digits(2), literal(":"), let minute = digits(2), literal(":"), let second = digits(2) else {
                return nil
            }
            return (hour, minute, second)
        }
    }
}

extension HTTPDate {
    /// `date` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form servers send: for the
    /// test server's `Date` and for tests. Dates outside years 0–9999 are clamped to them.
    package static func imfFixdate(_ date: Date) -> String {
        let lowest = Double(days(year: 0, month: 1, day: 1)) * 86_400
        let highest = Double(days(year: 9_999, month: 12, day: 31)) * 86_400 + 86_399
        let interval = date.timeIntervalSince1970
        let clamped = interval.isNaN ? 0 : min(max(interval, lowest), highest)
        let fields = Fields(now: Date(timeIntervalSince1970: clamped))
        let days = days(year: fields.year, month: fields.month, day: fields.day)
        let weekday = ((days % 7) + 7 + 3) % 7  // 1970-01-01 was a Thursday: index 3 from Monday
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(repeating: "0", count: max(0, 4 - String(fields.year).count)) + String(fields.year)
        let name = { (names: [[UInt8]], index: Int) in String(decoding: names[index], as: UTF8.self) }
        return "\(name(shortDayNames, weekday)), \(twoDigits(fields.day)) \(name(monthNames, fields.month - 1)) \(year) "
            + "\(twoDigits(fields.time.hour)):\(twoDigits(fields.time.minute)):\(twoDigits(fields.time.second)) GMT"
    }
}
