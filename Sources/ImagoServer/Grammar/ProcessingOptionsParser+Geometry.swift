#if os(Linux)
extension ProcessingOptionsParser {
    /// The longest offset, crop side or padding a URL may name, in pixels.
    static let maximumOffset = Double(maximumLength)

    /// `TYPE[:X:Y]`, `fp:X:Y` or `sm` (when `allowsSmart`), as imgproxy reads a gravity: offsets
    /// may be left empty (0); a focus point needs both coordinates, in 0...1; `sm` takes none.
    static func gravity(_ arguments: ArraySlice<Substring>, allowsSmart: Bool, for name: Substring)
        throws(ProcessingPathError) -> ProcessingOptions.Gravity
    {
        guard let first = arguments.first else { throw .badOptions("\(quoted(name)) needs a gravity type") }
        guard let anchor = ProcessingOptions.Gravity.Anchor(rawValue: String(first)), allowsSmart || anchor != .smart else {
            let known = ProcessingOptions.Gravity.Anchor.allCases.filter { allowsSmart || $0 != .smart }.map(\.rawValue)
            throw .badOptions("unknown gravity \(quoted(first)) in \(quoted(name)); use \(known.joined(separator: ", "))")
        }
        let offsets = Array(arguments.dropFirst())
        switch anchor {
        case .smart:
            guard offsets.isEmpty else { throw .badOptions("\(quoted(name)): the smart gravity sm takes no offsets") }
            return ProcessingOptions.Gravity(.smart)
        case .focusPoint:
            guard offsets.count == 2 else {
                throw .badOptions("\(quoted(name)): the focus point takes two coordinates, fp:X:Y, each in 0...1")
            }
            return ProcessingOptions.Gravity(
                .focusPoint, x: try decimal(offsets[0], in: 0...1, for: name), y: try decimal(offsets[1], in: 0...1, for: name))
        default:
            guard offsets.count <= 2 else { throw .badOptions("\(quoted(name)) takes a gravity type and at most two offsets") }
            var gravity = ProcessingOptions.Gravity(anchor)
            if offsets.count > 0, !offsets[0].isEmpty {
                gravity.x = try decimal(offsets[0], in: -maximumOffset...maximumOffset, for: name)
            }
            if offsets.count > 1, !offsets[1].isEmpty {
                gravity.y = try decimal(offsets[1], in: -maximumOffset...maximumOffset, for: name)
            }
            return gravity
        }
    }

    /// `c:WIDTH[:HEIGHT[:GRAVITY…]]`.
    static func crop(_ arguments: [Substring], for name: Substring) throws(ProcessingPathError) -> ProcessingOptions.Crop? {
        guard arguments.count <= 5 else { throw .badOptions("\(quoted(name)) takes WIDTH:HEIGHT and a gravity") }
        let width = try decimal(arguments[0], in: 0...maximumOffset, for: name)
        let height = arguments.count > 1 && !arguments[1].isEmpty ? try decimal(arguments[1], in: 0...maximumOffset, for: name) : 0
        var crop = ProcessingOptions.Crop(width: width, height: height)
        if arguments.count > 2 {
            crop.gravity = try gravity(arguments[2...], allowsSmart: true, for: name)
        }
        return width == 0 && height == 0 ? nil : crop
    }

    /// `pd:TOP[:RIGHT[:BOTTOM[:LEFT]]]`: CSS shorthand, an empty side copied as CSS copies it;
    /// `nil` when every side is 0.
    static func padding(_ arguments: [Substring], for name: Substring) throws(ProcessingPathError) -> ProcessingOptions.Padding? {
        guard arguments.count <= 4 else { throw .badOptions("\(quoted(name)) takes at most 4 sides (TOP:RIGHT:BOTTOM:LEFT)") }
        var sides: [Int?] = []
        for argument in arguments {
            sides.append(argument.isEmpty ? nil : try length(argument, for: name))
        }
        while sides.count < 4 { sides.append(nil) }
        let top = sides[0] ?? 0
        let right = sides[1] ?? top
        let bottom = sides[2] ?? top
        let left = sides[3] ?? right
        let padding = ProcessingOptions.Padding(top: top, right: right, bottom: bottom, left: left)
        return padding == ProcessingOptions.Padding(top: 0, right: 0, bottom: 0, left: 0) ? nil : padding
    }

    /// `ex:BOOL[:GRAVITY…]` (any gravity but `sm`); `nil` when not extending.
    static func extend(_ arguments: ArraySlice<Substring>, for name: Substring) throws(ProcessingPathError) -> ProcessingOptions.Extend? {
        guard let first = arguments.first else { return nil }
        guard arguments.count <= 4 else { throw .badOptions("\(quoted(name)) takes 1 or 0 and a gravity") }
        let enabled = try boolean(first, for: name)
        var extend = ProcessingOptions.Extend()
        if arguments.count > 1 {
            extend.gravity = try gravity(arguments.dropFirst(), allowsSmart: false, for: name)
        }
        return enabled ? extend : nil
    }

    /// `rot:ANGLE`: a multiple of 90 (any sign), as 0, 90, 180 or 270.
    static func rotation(_ text: Substring, for name: Substring) throws(ProcessingPathError) -> Int {
        let angle = try signedInteger(text, digits: 9, for: name)
        guard angle % 90 == 0 else { throw .badOptions("\(quoted(name)) takes a multiple of 90 degrees, got \(quoted(text))") }
        return ((angle % 360) + 360) % 360
    }
}
#endif
