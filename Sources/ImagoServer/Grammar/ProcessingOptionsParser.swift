#if os(Linux)
import Imago

/// Reads option segments (`rs:fill:300:200`, `q:80`…) into ``ProcessingOptions``, with imgproxy's
/// syntax and defaults; every number is bounded here, so nothing computed from it later can
/// overflow. Each malformed option is a `bad_options` error naming it.
///
/// | option | arguments | |
/// |---|---|---|
/// | `rs`, `resize` | `type:width:height:enlarge:extend:gravity…` | any argument may be empty (kept) |
/// | `rt`, `resizing_type` | `fit`, `fill`, `fill-down`, `force`, `auto` | |
/// | `s`, `size` | `width:height:enlarge:extend:gravity…` | |
/// | `w`, `width`; `h`, `height` | 0...100000 | 0: from the other side |
/// | `el`, `enlarge` | `1`, `0`, `t`, `f`, `true`, `false` | |
/// | `ex`, `extend` | boolean, then a gravity (not `sm`) | |
/// | `exar`, `extend_ar`, `extend_aspect_ratio` | boolean, then a gravity (not `sm`) | |
/// | `mw`, `min-width`; `mh`, `min-height` | 0...100000 | 0: none |
/// | `z`, `zoom` | one or two numbers in (0, 100] | across and down |
/// | `mrd`, `max_result_dimension` | whole number | ≤ 0: the server's limit |
/// | `fl`, `flip` | two booleans, either empty | horizontal, vertical |
/// | `ar`, `auto_rotate` | boolean | `0` refused: orientation is always applied |
/// | `pix`, `pixelate` | 0...100000 | ≤ 1: none |
/// | `dpr` | a number in (0, 8] | |
/// | `g`, `gravity` | `no so ea we noea nowe soea sowe ce` + offsets; `fp:x:y`; `sm` | offsets ±100000 |
/// | `c`, `crop` | `width:height:gravity…` | ≥1 pixels, <1 a share, 0 whole side |
/// | `pd`, `padding` | `top:right:bottom:left` (CSS shorthand) | 0...100000 each |
/// | `rot`, `rotate` | a multiple of 90 | |
/// | `bl`, `blur`; `sh`, `sharpen` | sigma 0...100 | 0: none |
/// | `q`, `quality` | 0...100 | 0: the server's default |
/// | `f`, `format`, `ext` | `jpeg`, `jpg`, `png`, `webp`, `avif`, `jxl`, `gif`, `auto` | |
/// | `bg`, `background` | `RRGGBB`, `RGB` or `R:G:B` | empty: none |
/// | `scp`, `strip_color_profile`; `sm`, `strip_metadata` | boolean | |
/// | `exp`, `expires` | unix time | ≤ 0: never |
/// | `cb`, `cachebuster` | any text | empty: none |
/// | `pr`, `preset` | preset names | from ``ProcessingPresets`` |
/// | `msr`, `max_src_resolution` | megapixels, 0...100000 | security option |
/// | `msfs`, `max_src_file_size` | bytes, 0...10^12 | security option |
/// | `fq`, `format_quality` | `format:quality` pairs, quality 0...100 | 0: none for that format |
/// | `mb`, `max_bytes` | bytes, 0...10^12 | 0: none |
/// | `skp`, `skip_processing` | source format names | |
/// | `raw` | boolean | |
/// | `fn`, `filename` | a name, then an optional boolean: base64url-encoded | |
/// | `att`, `return_attachment` | boolean | |
/// | `t`, `trim` | `threshold:color:equal_hor:equal_ver` | empty threshold: none; empty colour: the top-left pixel's |
/// | `wm`, `watermark` | `opacity:position:x:y:scale` | opacity 0...1; `re` replicates; scale > 0 |
/// | `wmu`, `watermark_url` | a base64url-encoded URL | the watermark for this request |
/// | `eth`, `enforce_thumbnail` | boolean | a HEIF or AVIF source's embedded thumbnail, when it has one |
/// | `kcr`, `keep_copyright` | boolean | with `sm`, the source's authorship is kept |
/// | `ph`, `preserve_hdr` | boolean | accepted, no effect |
struct ProcessingOptionsParser {
    /// The largest width or height a URL may name (before the ratio).
    static let maximumLength = 100_000
    /// The largest blur or sharpen sigma, in pixels.
    static let maximumSigma = 100.0

    var options = ProcessingOptions()
    /// What `pr:` may name.
    let presets: ProcessingPresets
    /// The presets being applied, innermost last: a preset that names itself (directly or through
    /// another) is skipped there, as imgproxy skips it, so applying presets always ends.
    private var applying: [Substring] = []
    /// Preset segments applied so far: presets naming presets could multiply the work, so it is
    /// bounded (``maximumPresetSegments``).
    private var presetSegments = 0
    /// The most preset segments one path may apply.
    static let maximumPresetSegments = 1024

    /// What separates an option's name and arguments in the path (``ProcessingPath/Rules/argumentsSeparator``);
    /// presets are always read with `:`.
    var argumentsSeparator = ":"
    /// The option names a path may use (``ProcessingPath/Rules/allowedOptions``; empty: all);
    /// presets may use any.
    var allowedOptions: Set<String> = []

    init(presets: ProcessingPresets = .none) {
        self.presets = presets
    }

    /// The options names `unknown option` lists.
    static let knownOptions =
        "rs, rt, s, w, h, mw, mh, z, el, ex, exar, dpr, g, c, pd, rot, fl, ar, bl, sh, pix, q, f, bg, scp, sm, exp, cb, pr, msr, msfs, maf, mafr, mrd, fq, mb, skp, raw, fn, att, kcr, ph, gm, eth, t, wm, wmu, fiu"

    /// Applies one `name:arg…` segment.
    mutating func apply(_ segment: Substring) throws(ProcessingPathError) {
        let separator = applying.isEmpty ? argumentsSeparator : ":"
        let parts =
            separator == ":"
            ? segment.split(separator: ":", omittingEmptySubsequences: false)
            : segment.split(separator: separator, omittingEmptySubsequences: false)
        guard let name = parts.first, parts.count >= 2 else {
            throw .badOptions("the option \(Self.quoted(segment)) has no arguments; write name\(separator)argument")
        }
        if !allowedOptions.isEmpty, applying.isEmpty, !allowedOptions.contains(String(name)) {
            throw ProcessingPathError(
                code: "forbidden_option", message: "the option \(Self.quoted(name)) is not among this server's allowed options")
        }
        let arguments = Array(parts.dropFirst())
        guard arguments.count <= 16 else { throw .badOptions("the option \(Self.quoted(name)) has too many arguments") }
        switch name {
        case "rs", "resize":
            try expect(arguments, atMost: 8, for: name)
            if !arguments[0].isEmpty { options.resizingType = try Self.resizingType(arguments[0], for: name) }
            try applySize(Array(arguments.dropFirst()), for: name)
        case "rt", "resizing_type":
            try expect(arguments, atMost: 1, for: name)
            options.resizingType = try Self.resizingType(arguments[0], for: name)
        case "s", "size":
            try expect(arguments, atMost: 7, for: name)
            try applySize(arguments, for: name)
        case "w", "width":
            try expect(arguments, atMost: 1, for: name)
            options.width = try Self.length(arguments[0], for: name)
        case "h", "height":
            try expect(arguments, atMost: 1, for: name)
            options.height = try Self.length(arguments[0], for: name)
        case "el", "enlarge":
            try expect(arguments, atMost: 1, for: name)
            options.enlarge = try Self.boolean(arguments[0], for: name)
        case "ex", "extend":
            options.extend = try Self.extend(arguments[...], for: name)
        case "dpr":
            try expect(arguments, atMost: 1, for: name)
            options.devicePixelRatio = try Self.ratio(arguments[0])
        case "g", "gravity":
            options.gravity = try Self.gravity(arguments[...], allowsSmart: true, for: name)
        case "c", "crop":
            options.crop = try Self.crop(arguments, for: name)
        case "pd", "padding":
            options.padding = try Self.padding(arguments, for: name)
        case "rot", "rotate":
            try expect(arguments, atMost: 1, for: name)
            options.rotation = try Self.rotation(arguments[0], for: name)
        case "bl", "blur":
            try expect(arguments, atMost: 1, for: name)
            let sigma = try Self.decimal(arguments[0], in: 0...Self.maximumSigma, for: name)
            options.blurSigma = sigma > 0 ? sigma : nil
        case "sh", "sharpen":
            try expect(arguments, atMost: 1, for: name)
            let sigma = try Self.decimal(arguments[0], in: 0...Self.maximumSigma, for: name)
            options.sharpenSigma = sigma > 0 ? sigma : nil
        default:
            try applyMore(name, arguments)
        }
    }

    /// The options that are not geometry: output, metadata, caching, presets, limits.
    mutating func applyOther(_ name: Substring, _ arguments: [Substring]) throws(ProcessingPathError) {
        switch name {
        case "q", "quality":
            try expect(arguments, atMost: 1, for: name)
            let quality = try Self.integer(arguments[0], in: 0...100, for: name)
            options.quality = quality == 0 ? nil : Double(quality) / 100
        case "f", "format", "ext":
            try expect(arguments, atMost: 1, for: name)
            guard let format = Self.format(named: arguments[0]) else {
                throw .badOptions("unknown format \(Self.quoted(arguments[0])); use jpeg, png, webp, avif, jxl, gif or auto")
            }
            options.format = format
        case "bg", "background":
            // imgproxy: an empty argument turns the background off.
            options.background = arguments == [""] ? nil : try Self.color(arguments)
        case "scp", "strip_color_profile":
            try expect(arguments, atMost: 1, for: name)
            options.stripColorProfile = try Self.boolean(arguments[0], for: name)
        case "sm", "strip_metadata":
            try expect(arguments, atMost: 1, for: name)
            options.stripMetadata = try Self.boolean(arguments[0], for: name)
        case "exp", "expires":
            try expect(arguments, atMost: 1, for: name)
            let timestamp = try Self.signedInteger(arguments[0], for: name)
            options.expires = timestamp > 0 ? timestamp : nil
        case "cb", "cachebuster":
            try expect(arguments, atMost: 1, for: name)
            options.cacheBuster = arguments[0].isEmpty ? nil : String(arguments[0])
        case "pr", "preset":
            try applyPresets(arguments, for: name)
        case "fiu", "fallback_image_url":
            try expect(arguments, atMost: 1, for: name)
            options.fallbackImageURL = try Self.fallbackImageURL(arguments[0], for: name)
        case "msr", "max_src_resolution":
            try expect(arguments, atMost: 1, for: name)
            let megapixels = try Self.decimal(arguments[0], in: 0...100_000, for: name)
            // At most 10^11 pixels: an Int, whatever the platform's Double rounding.
            options.maximumSourcePixels = megapixels > 0 ? Int((megapixels * 1_000_000).rounded()) : nil
        case "msfs", "max_src_file_size":
            try expect(arguments, atMost: 1, for: name)
            let bytes = try Self.signedInteger(arguments[0], digits: 12, for: name)
            guard bytes >= 0 else { throw .badOptions("\(Self.quoted(name)) takes a number of bytes, 0 or more") }
            options.maximumSourceBytes = bytes > 0 ? bytes : nil
        case "maf", "max_animation_frames", "mafr", "max_animation_frame_resolution":
            try applyAnimationLimit(name, arguments)
        case "t", "trim", "wm", "watermark", "wmu", "watermark_url":
            try applyOverlay(name, arguments)
        default:
            try applyOutput(name, arguments)
        }
    }

    /// Applies the presets `names` in order (imgproxy's `pr:NAME:NAME…`).
    mutating func applyPresets(_ names: [Substring], for option: Substring) throws(ProcessingPathError) {
        for name in names {
            guard let segments = presets.definitions[String(name)] else {
                throw .badOptions("\(Self.quoted(option)): unknown preset \(Self.quoted(name))")
            }
            if applying.contains(name) { continue }  // a preset that names itself: once is enough
            applying.append(name)
            options.presets.append(String(name))
            for segment in segments {
                presetSegments += 1
                guard presetSegments <= Self.maximumPresetSegments else {
                    throw .badOptions("\(Self.quoted(option)): the presets apply more than \(Self.maximumPresetSegments) options")
                }
                try apply(Substring(segment))
            }
            applying.removeLast()
        }
    }

    /// `width:height:enlarge:extend:gravity…` (each may be empty, which keeps what was there).
    private mutating func applySize(_ arguments: [Substring], for name: Substring) throws(ProcessingPathError) {
        if arguments.count > 0, !arguments[0].isEmpty { options.width = try Self.length(arguments[0], for: name) }
        if arguments.count > 1, !arguments[1].isEmpty { options.height = try Self.length(arguments[1], for: name) }
        if arguments.count > 2, !arguments[2].isEmpty { options.enlarge = try Self.boolean(arguments[2], for: name) }
        if arguments.count > 3, !arguments[3].isEmpty { options.extend = try Self.extend(arguments[3...], for: name) }
    }

    func expect(_ arguments: [Substring], atMost count: Int, for name: Substring) throws(ProcessingPathError) {
        guard arguments.count <= count else {
            throw .badOptions("the option \(Self.quoted(name)) takes at most \(count) argument\(count == 1 ? "" : "s"), got \(arguments.count)")
        }
    }

    static func resizingType(_ text: Substring, for name: Substring) throws(ProcessingPathError) -> ProcessingOptions.ResizingType {
        guard let type = ProcessingOptions.ResizingType(rawValue: String(text)) else {
            throw .badOptions("\(quoted(name)): unknown resizing type \(quoted(text)); use fit, fill, fill-down, force or auto")
        }
        return type
    }

    static func length(_ text: Substring, for name: Substring) throws(ProcessingPathError) -> Int {
        try integer(text, in: 0...maximumLength, for: name)
    }

    static func format(named text: Substring) -> ProcessingOptions.OutputFormat? {
        switch text.lowercased() {
        case "jpg", "jpeg": .jpeg
        case "png": .png
        case "webp": .webp
        case "avif": .avif
        case "jxl": .jxl
        case "gif": .gif
        case "auto": .auto
        default: nil
        }
    }

    /// `rrggbb`.
    static func hex(_ color: RGBA) -> String {
        let digits = Array("0123456789abcdef")
        return String([color.r, color.g, color.b].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}
#endif
