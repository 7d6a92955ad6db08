#if os(Linux)
extension ProcessingPath {
    /// How a server reads its paths beyond the grammar itself: imgproxy's `IMGPROXY_BASE_URL`,
    /// `IMGPROXY_URL_REPLACEMENTS`, `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`,
    /// `IMGPROXY_ARGUMENTS_SEPARATOR` and `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`. The defaults
    /// read paths exactly as ``ProcessingPath/parse(_:presets:rules:)`` always has.
    public struct Rules: Sendable, Hashable {
        /// Put before every source URL that does not already start with it (after the
        /// replacements), so paths may name `images/a.jpg` for `https://cdn.example.com/images/a.jpg`.
        /// Default: `""`, none.
        public var baseURL: String = ""
        /// Rewrites of the source URL, in order, each applied at its start: a pattern whose `*`
        /// matches a run of characters other than `/`, and a replacement where `$1`, `${1}`… name
        /// what the stars matched. Default: none.
        public var urlReplacements: [Replacement] = []
        /// Whether a base64url source split over several segments ends with a file name that is
        /// not part of it (`/…/aHR0cHM6Ly9…/photo.jpg`). Default: `false`.
        public var base64URLIncludesFilename: Bool = false
        /// What separates an option's name and arguments (`rs:fill:300:200`); presets keep `:`.
        /// Default: `":"`.
        public var argumentsSeparator: String = ":"
        /// The option names (as the path spells them: `rs` and `resize` are two names) a path may
        /// use; presets may use any. Default: empty, every option.
        public var allowedOptions: Set<String> = []

        /// A source URL rewrite: `pattern` at the start of the URL becomes `replacement`.
        public struct Replacement: Sendable, Hashable {
            public var pattern: String
            public var replacement: String

            public init(pattern: String, replacement: String) {
                self.pattern = pattern
                self.replacement = replacement
            }

            /// `text` with this rewrite applied at its start, or `text` when the pattern does not match there.
            func apply(to text: String) -> String {
                var matcher = Matcher(literals: pattern.split(separator: "*", omittingEmptySubsequences: false))
                guard let (end, captures) = matcher.match(Substring(text), from: 0) else { return text }
                return expand(captures) + text[end...]
            }

            /// The most places a match tries before it counts as no match. Each star tries the ends
            /// of its run from the longest down (as a greedy regular expression would), and each
            /// place is tried once for each literal; still, stars over one long segment of a path
            /// could try its length squared of places. A pattern a server is configured with matches
            /// real URLs in a few hundred.
            static let maximumSteps = 100_000

            /// Matches the literals of a pattern (joined by stars) at the start of a text.
            private struct Matcher {
                let literals: [Substring]
                /// Places where the literals from an index on were tried and did not match.
                var failed = Set<Attempt>()
                var steps = 0

                struct Attempt: Hashable {
                    var position: String.Index
                    var literal: Int
                }

                init(literals: [Substring]) { self.literals = literals }

                /// The end of the match of the literals from `literal` on at the start of `text`,
                /// and the stars' runs; `nil` when there is none, or when the steps ran out.
                mutating func match(_ text: Substring, from literal: Int) -> (String.Index, [Substring])? {
                    let attempt = Attempt(position: text.startIndex, literal: literal)
                    guard !failed.contains(attempt), text.hasPrefix(literals[literal]) else { return nil }
                    let rest = text.dropFirst(literals[literal].count)
                    guard literal + 1 < literals.count else { return (rest.startIndex, []) }
                    var end = rest.prefix { $0 != "/" }.endIndex
                    while steps < Replacement.maximumSteps {
                        steps += 1
                        if let (matchEnd, captures) = match(rest[end...], from: literal + 1) {
                            return (matchEnd, [rest[rest.startIndex..<end]] + captures)
                        }
                        guard end > rest.startIndex else { break }
                        end = rest.index(before: end)
                    }
                    failed.insert(attempt)
                    return nil
                }
            }

            /// The replacement with `$N` and `${N}` filled from `captures` (an unknown group: nothing).
            private func expand(_ captures: [Substring]) -> String {
                var result = ""
                var rest = Substring(replacement)
                while let dollar = rest.firstIndex(of: "$") {
                    result += rest[..<dollar]
                    var after = rest[rest.index(after: dollar)...]
                    let braced = after.first == "{"
                    if braced { after = after.dropFirst() }
                    let digits = after.prefix { $0.isASCII && $0.isNumber }
                    guard !digits.isEmpty, !braced || after.dropFirst(digits.count).first == "}" else {
                        result += "$"
                        rest = rest[rest.index(after: dollar)...]
                        continue
                    }
                    if let index = Int(digits), index >= 1, index <= captures.count { result += captures[index - 1] }
                    rest = after.dropFirst(digits.count + (braced ? 1 : 0))
                }
                return result + rest
            }
        }

        public init() {}

        /// `url` rewritten by the replacements, then under the base URL.
        func preprocess(_ url: String) -> String {
            let replaced = urlReplacements.reduce(url) { $1.apply(to: $0) }
            guard !baseURL.isEmpty, !replaced.hasPrefix(baseURL) else { return replaced }
            return baseURL + replaced
        }
    }
}
#endif
