#if os(Linux)
import Foundation

extension ServeEnvironment {
    /// An RFC 3339 date-time as imgproxy's `IMGPROXY_LAST_MODIFIED_BUSTER` takes it
    /// (`2026-11-03T10:00:00Z`, `2026-11-03T11:00:00+01:00`, fractional seconds allowed and
    /// dropped), or `nil`. Read field by field (no formatter), every field range-checked.
    static func rfc3339(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard (20...40).contains(bytes.count) else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), bytes[4] == 0x2D, let month = number(5..<7), bytes[7] == 0x2D,
            let day = number(8..<10), bytes[10] == 0x54 || bytes[10] == 0x74, let hour = number(11..<13), bytes[13] == 0x3A,
            let minute = number(14..<16), bytes[16] == 0x3A, let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        if bytes[index] == 0x2E {  // fractional seconds
            index += 1
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case 0x5A, 0x7A:  // Z
            guard index + 1 == bytes.count else { return nil }
        case 0x2B, 0x2D:  // +hh:mm, -hh:mm
            guard index + 6 == bytes.count, let hours = number((index + 1)..<(index + 3)), bytes[index + 3] == 0x3A,
                let minutes = number((index + 4)..<(index + 6)), hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 60 + minutes) * 60 * (bytes[index] == 0x2B ? 1 : -1)
        default:
            return nil
        }
        guard let utc = TimeZone(secondsFromGMT: 0) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        // A day the month does not have (31 April) rolls over: refused.
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
        return date.addingTimeInterval(TimeInterval(-offset))
    }
}
#endif
