import Foundation

/// Reads the response header values Imago acts on, as small pure functions over hostile text.
///
/// Every function takes the raw field value (repeated fields joined with ", ", as the loaders
/// join them) and returns either a usable value or `nil`/an invalid marker; none of them traps,
/// whatever the bytes. They are the entry points of the `http-headers` fuzz harness.
enum HTTPHeaderParser {
    /// The largest delta-seconds value honoured: RFC 9111 §1.2.2 says a cache treats anything
    /// larger (or any overflow) as 2^31 seconds, about 68 years.
    static let maximumDeltaSeconds = 2_147_483_648

    /// The longest validator (`ETag`, `Last-Modified`) kept and sent back: longer ones are
    /// ignored, so a server cannot make every revalidation carry kilobytes.
    static let maximumValidatorLength = 1_024

    // MARK: - Numbers

    /// A delta-seconds value (`Cache-Control: max-age`, `Age`, `Retry-After`): one or more ASCII
    /// digits, optionally quoted, clamped to ``maximumDeltaSeconds``. Empty, signed, fractional
    /// or otherwise malformed values are `nil`.
    static func deltaSeconds(_ value: some StringProtocol) -> Int? {
        var text = Substring(value).trimmingCharacters(in: .whitespaces)[...]
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var result = 0
        for digit in text.utf8 {
            let (shifted, overflowA) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = shifted.addingReportingOverflow(Int(digit - 0x30))
            if overflowA || overflowB || sum > maximumDeltaSeconds { return maximumDeltaSeconds }
            result = sum
        }
        return result
    }

    /// What a `Content-Length` field says.
    enum ContentLength: Sendable, Hashable {
        /// A single length (a list of identical lengths, `5, 5`, counts as one, per RFC 9110 §8.6).
        case length(Int)
        /// A length too large to count in an `Int`: certainly over any body limit.
        case tooLarge
        /// Not a length: empty, negative, not a number, or a list of different lengths.
        case invalid

        /// The value of a `Content-Length` field.
        init(_ value: some StringProtocol) {
            var distinct: Set<Substring> = []
            for element in value.split(separator: ",", omittingEmptySubsequences: false) {
                let digits = Substring(element.trimmingCharacters(in: .whitespaces))
                guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    self = .invalid
                    return
                }
                let significant = digits.drop { $0 == "0" }
                distinct.insert(significant.isEmpty ? "0" : significant)
            }
            guard distinct.count == 1, let only = distinct.first else {
                self = .invalid
                return
            }
            // All digits, so a failed conversion can only be an overflow.
            self = Int(only).map { .length($0) } ?? .tooLarge
        }
    }

    /// A `Content-Range` field of a `206 Partial Content` (RFC 9110 §14.4): `bytes first-last/total`,
    /// or `bytes first-last/*` when the server does not know the total.
    struct ContentRange: Sendable, Hashable {
        /// The position of the first byte sent.
        var first: Int
        /// The position of the last byte sent (inclusive).
        var last: Int
        /// The complete length of the representation, when known.
        var total: Int?

        /// The bytes the part holds: `last - first + 1`.
        var length: Int { last - first + 1 }  // first <= last, both in Int: no overflow

        /// Reads a `Content-Range` value; `nil` for anything but a byte range with first ≤ last (and
        /// last < total when the total is known): another unit, `*` in place of a range (a 416's
        /// form), signs, spaces inside numbers, more than 18 digits, junk after the total.
        init?(_ value: some StringProtocol) {
            let text = Substring(value).trimmingCharacters(in: .whitespaces)
            guard text.utf8.count <= 64 else { return nil }
            let unitAndRange = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard unitAndRange.count == 2, unitAndRange[0].lowercased() == "bytes" else { return nil }
            let rangeAndTotal = unitAndRange[1].trimmingCharacters(in: .whitespaces)
                .split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard rangeAndTotal.count == 2 else { return nil }
            let bounds = rangeAndTotal[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last
            else { return nil }
            if rangeAndTotal[1] == "*" {
                total = nil
            } else {
                guard let total = Self.number(rangeAndTotal[1]), last < total else { return nil }
                self.total = total
            }
            self.first = first
            self.last = last
        }

        /// A run of 1 to 18 ASCII digits (so it fits an `Int` without overflow), or `nil`.
        private static func number(_ text: some StringProtocol) -> Int? {
            guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            var result = 0
            for digit in text.utf8 {
                let (shifted, overflowA) = result.multipliedReportingOverflow(by: 10)
                let (sum, overflowB) = shifted.addingReportingOverflow(Int(digit - 0x30))
                if overflowA || overflowB { return nil }
                result = sum
            }
            return result
        }
    }

    /// Whether an `Accept-Ranges` field lists `bytes` (any case), so a download of it can be resumed.
    static func acceptsByteRanges(_ value: String?) -> Bool {
        guard let value else { return false }
        return value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "bytes" }
    }

    // MARK: - Dates

    /// An HTTP date in any of the three formats RFC 9110 §5.6.7 requires recipients to accept
    /// (IMF-fixdate, RFC 850, asctime), or `nil`: ``HTTPDate``, a bounded parser of our own (no
    /// Foundation formatter sees a server's bytes).
    static func httpDate(_ value: some StringProtocol, now: Date = Date()) -> Date? {
        HTTPDate(value, now: now)?.date
    }

    /// A `Retry-After` value as a wait: delta-seconds (`120`) or an HTTP date, counted from `now`
    /// (a past date is no wait). Negative, fractional, empty or unreadable values are `nil`.
    static func retryAfter(_ value: some StringProtocol, now: Date) -> Duration? {
        if let seconds = deltaSeconds(value) { return .seconds(seconds) }
        guard let date = httpDate(value, now: now) else { return nil }
        return duration(seconds: date.timeIntervalSince(now))
    }

    /// `seconds` as a `Duration`, with negatives as zero and anything past
    /// ``maximumDeltaSeconds`` (or not finite) clamped to it, so no conversion can trap.
    static func duration(seconds: Double) -> Duration {
        guard !seconds.isNaN else { return .zero }
        let clamped = min(max(seconds, 0), Double(maximumDeltaSeconds))
        return .milliseconds(Int64((clamped * 1000).rounded(.down)))
    }

    // MARK: - Validators

    /// An `ETag` or `Last-Modified` value fit to store and send back, or `nil`: visible ASCII and
    /// spaces only, at most ``maximumValidatorLength`` bytes, not empty.
    static func validator(_ value: String?) -> String? {
        guard let value else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= maximumValidatorLength,
            trimmed.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || (0x21...0x7E).contains($0) })
        else { return nil }
        return trimmed
    }

    // MARK: - Cache-Control

    /// The `Cache-Control` directives Imago acts on.
    struct CacheControl: Sendable, Hashable {
        /// `no-store`: keep the body off the disk.
        var noStore = false
        /// `no-cache`: the body may be stored but is stale at once.
        var noCache = false
        /// `s-maxage` if given, else `max-age`, in seconds. A directive given twice with different
        /// values is invalid (RFC 9111 §4.2.1), which makes the response stale at once.
        var maxAge: Int?

        /// Reads the directives of a `Cache-Control` field: names are case-insensitive, values may
        /// be quoted, unknown directives and unreadable values are ignored.
        init(_ value: some StringProtocol) {
            var maxAges: Set<Int> = []
            var sharedMaxAges: Set<Int> = []
            var conflicting = false
            for part in value.split(separator: ",") {
                let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = pieces[0].trimmingCharacters(in: .whitespaces).lowercased()
                let argument = pieces.count > 1 ? pieces[1] : nil
                switch name {
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "max-age", "s-maxage":
                    // An empty, negative or malformed value makes the response stale (RFC 9111 §4.2.1).
                    guard let seconds = argument.flatMap({ HTTPHeaderParser.deltaSeconds($0) }) else {
                        conflicting = true
                        continue
                    }
                    if name == "max-age" { maxAges.insert(seconds) } else { sharedMaxAges.insert(seconds) }
                default: continue
                }
            }
            if conflicting || maxAges.count > 1 || sharedMaxAges.count > 1 {
                maxAge = 0
            } else {
                maxAge = sharedMaxAges.first ?? maxAges.first
            }
        }
    }
}
