#if os(Linux)
/// Named groups of options a path can apply with `pr:NAME` (imgproxy's presets), given at start
/// (`imago serve --preset NAME=OPTIONS`). A preset named `default` applies to every path, first.
///
/// With ``onlyPresets`` (imgproxy's `IMGPROXY_ONLY_PRESETS`), a path names presets only:
/// `/{signature}/{name}:{name}…/{source}`; any other option is refused.
public struct ProcessingPresets: Sendable, Hashable {
    /// Each preset's option segments (`rs:fill:300:200`, `q:80`…), by name.
    public private(set) var definitions: [String: [String]] = [:]
    /// Whether a path's options segment is a list of preset names instead of options. Default: `false`.
    public var onlyPresets = false

    /// The longest definition accepted, in bytes (as long as a whole path may be).
    public static let maximumDefinitionLength = ProcessingPath.maximumLength

    /// No presets.
    public static let none = ProcessingPresets()

    public init() {}

    /// Presets from `NAME=OPTIONS` texts (OPTIONS: segments joined by `/`, as in a path), each
    /// checked by applying it. A later definition of a name replaces an earlier one.
    /// - Throws: ``ProcessingPathError`` (`bad_options`) naming the preset, for a text without
    ///   `=`, an empty name or value, a segment that is no option, or an option that does not parse.
    public init(definitions texts: [String], onlyPresets: Bool = false) throws(ProcessingPathError) {
        self.onlyPresets = onlyPresets
        for text in texts {
            guard text.utf8.count <= Self.maximumDefinitionLength else {
                throw .badOptions("a preset definition is longer than \(Self.maximumDefinitionLength) bytes")
            }
            let parts = text.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw .badOptions("the preset \(ProcessingOptionsParser.quoted(Substring(text))) is not NAME=OPTIONS")
            }
            let name = parts[0].trimmingSpaces
            let value = parts[1].trimmingSpaces
            guard !name.isEmpty, !name.contains(":"), !name.contains("/") else {
                throw .badOptions("the preset \(ProcessingOptionsParser.quoted(Substring(text))) needs a name without : or /")
            }
            guard !value.isEmpty else { throw .badOptions("the preset \(ProcessingOptionsParser.quoted(name)) has no options") }
            let segments = value.split(separator: "/").map(String.init)
            for segment in segments where !segment.contains(":") {
                throw .badOptions(
                    "the preset \(ProcessingOptionsParser.quoted(name)) has \(ProcessingOptionsParser.quoted(Substring(segment))), which is no option (name:arguments)")
            }
            definitions[String(name)] = segments
        }
        // Each checked as a path would apply it (presets it names included).
        for name in definitions.keys.sorted() {
            var parser = ProcessingOptionsParser(presets: self)
            do {
                try parser.applyPresets([Substring(name)], for: "pr")
            } catch {
                throw .badOptions("the preset \(ProcessingOptionsParser.quoted(Substring(name))): \(error.message)")
            }
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces.
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
#endif
