#if os(Linux)
extension ProcessingOptionsParser {
    /// The largest zoom a URL may name (across or down): with the ratio and the largest side it
    /// keeps every size computed from it far inside an `Int`.
    static let maximumZoom = 100.0

    /// The geometry options beyond the resize itself (imgproxy's `min-width`, `min-height`, `zoom`,
    /// `extend_aspect_ratio`, `max_result_dimension`, `flip`, `auto_rotate`, `pixelate`); anything
    /// else goes on to ``applyOther(_:_:)``.
    mutating func applyMore(_ name: Substring, _ arguments: [Substring]) throws(ProcessingPathError) {
        switch name {
        case "mw", "min-width":
            try expect(arguments, atMost: 1, for: name)
            options.minimumWidth = try Self.length(arguments[0], for: name)
        case "mh", "min-height":
            try expect(arguments, atMost: 1, for: name)
            options.minimumHeight = try Self.length(arguments[0], for: name)
        case "z", "zoom":
            // imgproxy: one value for both sides, or across and down.
            try expect(arguments, atMost: 2, for: name)
            let across = try Self.zoom(arguments[0], for: name)
            options.zoomWidth = across
            options.zoomHeight = arguments.count > 1 ? try Self.zoom(arguments[1], for: name) : across
        case "exar", "extend_ar", "extend_aspect_ratio":
            options.extendAspectRatio = try Self.extend(arguments[...], for: name)
        case "mrd", "max_result_dimension":
            try expect(arguments, atMost: 1, for: name)
            let limit = try Self.signedInteger(arguments[0], digits: 9, for: name)
            options.maximumResultDimension = limit > 0 ? limit : nil
        case "fl", "flip":
            // imgproxy: `fl:H:V`, either may be left empty (unchanged).
            try expect(arguments, atMost: 2, for: name)
            if !arguments[0].isEmpty { options.flipHorizontally = try Self.boolean(arguments[0], for: name) }
            if arguments.count > 1, !arguments[1].isEmpty { options.flipVertically = try Self.boolean(arguments[1], for: name) }
        case "ar", "auto_rotate":
            try expect(arguments, atMost: 1, for: name)
            guard try Self.boolean(arguments[0], for: name) else {
                throw .badOptions(
                    "\(Self.quoted(name)):0 is not supported: this server always applies the source's EXIF orientation (ar:1)")
            }
            options.autoRotate = true
        case "pix", "pixelate":
            try expect(arguments, atMost: 1, for: name)
            let size = try Self.length(arguments[0], for: name)
            options.pixelateSize = size > 1 ? size : nil
        default:
            try applyOther(name, arguments)
        }
    }

    /// A zoom factor: a number greater than 0 and at most ``maximumZoom``.
    static func zoom(_ text: Substring, for name: Substring) throws(ProcessingPathError) -> Double {
        guard let value = try? decimal(text, in: 0...maximumZoom, for: name), value > 0 else {
            throw .badOptions("\(quoted(name)) takes a number greater than 0 and at most 100, got \(quoted(text))")
        }
        return value
    }
}
#endif
