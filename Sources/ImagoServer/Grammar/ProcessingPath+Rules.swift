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
                let literals = pattern.split(separator: "*", omittingEmptySubsequences: false)
                guard let (end, captures) = Self.match(Substring(text), literals[...]) else { return text }
                return expand(captures) + text[end...]
            }

            /// Matches `literals` (joined by stars) at the start of `text`, each star as long as it
            /// may be (as a greedy regular expression would); the end of the match and the stars' runs.
            private static func match(_ text: Substring, _ literals: ArraySlice<Substring>) -> (String.Index, [Substring])? {
                guard let first = literals.first, text.hasPrefix(first) else { return nil }
                let rest = text.dropFirst(first.count)
                guard literals.count > 1 else { return (rest.startIndex, []) }
                let run = rest.prefix { $0 != "/" }
                var end = run.endIndex
                while true {
                    if let (matchEnd, captures) = match(rest[end...], literals.dropFirst()) {
                        return (matchEnd, [rest[rest.startIndex..<end]] + captures)
                    }
                    guard end > rest.startIndex else { return nil }
                    end = rest.index(before: end)
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
