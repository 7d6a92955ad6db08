/// An XMP packet read as a tree by a deliberately small XML reader: elements, attributes and
/// character data, with comments and the `xpacket` processing instructions skipped. Anything it
/// does not understand (a DOCTYPE, CDATA, another processing instruction, an entity other than
/// the five predefined and character references, a name it cannot read, mismatched tags, more
/// than ``maximumDepth`` levels) makes ``parse(_:)`` refuse the whole packet, so what is written
/// back from a tree is always well-formed XML.
struct XMPElement: Equatable {
    /// The qualified name as written (`dc:rights`).
    var name: String
    /// Attributes in order: qualified name, value as written (escapes kept) and its quote.
    var attributes: [Attribute]
    var children: [Child]

    struct Attribute: Equatable {
        var name: String
        var value: String
        var quote: Character
    }

    enum Child: Equatable {
        case element(XMPElement)
        /// Character data as written (escapes kept, validated).
        case text(String)
    }

    static let maximumDepth = 64
    static let maximumElements = 100_000

    /// The prefix of a qualified name (`dc` of `dc:rights`), or `nil` when unprefixed.
    static func prefix(of name: String) -> String? {
        name.firstIndex(of: ":").map { String(name[..<$0]) }
    }

    /// The local part of a qualified name.
    static func localName(of name: String) -> String {
        name.firstIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name
    }

    /// The namespace declarations among ``attributes``: prefix to URI (`""` for a default).
    var declarations: [String: String] {
        var result: [String: String] = [:]
        for attribute in attributes {
            if attribute.name == "xmlns" { result[""] = attribute.value }
            else if attribute.name.hasPrefix("xmlns:") { result[String(attribute.name.dropFirst(6))] = attribute.value }
        }
        return result
    }

    /// This element written as XML.
    func serialized(into output: inout String) {
        output += "<" + name
        for attribute in attributes {
            output += " " + attribute.name + "=" + String(attribute.quote) + attribute.value + String(attribute.quote)
        }
        guard !children.isEmpty else {
            output += "/>"
            return
        }
        output += ">"
        for child in children {
            switch child {
            case .element(let element): element.serialized(into: &output)
            case .text(let text): output += text
            }
        }
        output += "</" + name + ">"
    }

    /// The root element of `packet` (UTF-8), or `nil` when it is not XML this reader understands.
    static func parse(_ packet: [UInt8]) -> XMPElement? {
        guard String(validating: packet, as: UTF8.self) != nil else { return nil }
        var reader = XMPReader(bytes: packet)
        return reader.document()
    }
}

/// The reader behind ``XMPElement/parse(_:)``: iterative (an explicit stack of open elements), so
/// no input can exhaust the call stack.
private struct XMPReader {
    let bytes: [UInt8]
    var offset = 0
    var elementCount = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func document() -> XMPElement? {
        var stack: [XMPElement] = []
        var root: XMPElement?
        // A UTF-8 byte order mark may start the packet.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
        while offset < bytes.count {
            if bytes[offset] != UInt8(ascii: "<") {
                let start = offset
                while offset < bytes.count, bytes[offset] != UInt8(ascii: "<") { offset += 1 }
                let text = bytes[start..<offset]
                guard Self.validCharacterData(text) else { return nil }
                if stack.isEmpty {
                    // Outside the root only white space (and a packet's NUL padding) may appear.
                    guard text.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
                } else {
                    stack[stack.count - 1].children.append(.text(String(decoding: text, as: UTF8.self)))
                }
                continue
            }
            if matches("<?") {
                guard matches("<?xpacket"), let end = find("?>") else { return nil }
                offset = end + 2
            } else if matches("<!--") {
                guard let end = find("-->") else { return nil }
                offset = end + 3
            } else if matches("<!") {
                return nil  // DOCTYPE, CDATA: not read
            } else if matches("</") {
                offset += 2
                guard let name = name(), let closed = stack.popLast(), closed.name == name else { return nil }
                skipSpace()
                guard take(">") else { return nil }
                if stack.isEmpty {
                    guard root == nil else { return nil }
                    root = closed
                } else {
                    stack[stack.count - 1].children.append(.element(closed))
                }
            } else {
                offset += 1
                guard root == nil, let element = startTag() else { return nil }
                elementCount += 1
                guard elementCount <= XMPElement.maximumElements else { return nil }
                if take("/>") {
                    if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(.element(element)) }
                } else {
                    guard take(">"), stack.count < XMPElement.maximumDepth else { return nil }
                    stack.append(element)
                }
            }
        }
        guard stack.isEmpty else { return nil }
        return root
    }

    /// A start tag's name and attributes, up to (not including) `>` or `/>`.
    private mutating func startTag() -> XMPElement? {
        guard let name = name() else { return nil }
        var element = XMPElement(name: name, attributes: [], children: [])
        while true {
            let hadSpace = skipSpace()
            if matches(">") || matches("/>") { return element }
            guard hadSpace, let attributeName = self.name() else { return nil }
            skipSpace()
            guard take("=") else { return nil }
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") || bytes[offset] == UInt8(ascii: "'") else { return nil }
            let quote = bytes[offset]
            offset += 1
            let start = offset
            while offset < bytes.count, bytes[offset] != quote {
                guard bytes[offset] != UInt8(ascii: "<") else { return nil }
                offset += 1
            }
            guard offset < bytes.count else { return nil }
            let value = bytes[start..<offset]
            offset += 1
            guard Self.validCharacterData(value), !element.attributes.contains(where: { $0.name == attributeName }) else { return nil }
            element.attributes.append(
                XMPElement.Attribute(name: attributeName, value: String(decoding: value, as: UTF8.self), quote: Character(Unicode.Scalar(quote))))
        }
    }

    /// A name: letters, digits, `_ - .`, non-ASCII bytes, at most one `:` and not first.
    private mutating func name() -> String? {
        let start = offset
        var colons = 0
        while offset < bytes.count {
            let byte = bytes[offset]
            let isNameByte =
                (byte >= 0x80) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A)
                || (offset > start && ((byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E))
                || byte == 0x5F || (byte == 0x3A && offset > start)
            guard isNameByte else { break }
            if byte == 0x3A { colons += 1 }
            offset += 1
        }
        guard offset > start, colons <= 1, bytes[offset - 1] != 0x3A else { return nil }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = offset
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
        return offset > start
    }

    private func matches(_ text: String) -> Bool {
        let expected = Array(text.utf8)
        return bytes.count - offset >= expected.count && bytes[offset..<(offset + expected.count)].elementsEqual(expected)
    }

    private mutating func take(_ text: String) -> Bool {
        guard matches(text) else { return false }
        offset += text.utf8.count
        return true
    }

    private func find(_ text: String) -> Int? {
        let expected = Array(text.utf8)
        guard bytes.count - offset >= expected.count else { return nil }
        var index = offset
        while index <= bytes.count - expected.count {
            if bytes[index..<(index + expected.count)].elementsEqual(expected) { return index }
            index += 1
        }
        return nil
    }

    /// Whether `text` may be written back as it is: every `&` starts a predefined entity or a character
    /// reference, and there is no control character other than tab, line feed, carriage return.
    static func validCharacterData(_ text: ArraySlice<UInt8>) -> Bool {
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D { return false }
            // `]]>` may not appear in character data.
            if byte == UInt8(ascii: ">"), index - text.startIndex >= 2, text[index - 1] == UInt8(ascii: "]"), text[index - 2] == UInt8(ascii: "]") {
                return false
            }
            if byte == UInt8(ascii: "&") {
                guard let end = text[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { return false }
                let entity = String(decoding: text[(index + 1)..<end], as: UTF8.self)
                guard ["amp", "lt", "gt", "quot", "apos"].contains(entity) || validReference(entity) else { return false }
                index = end
            }
            index += 1
        }
        return true
    }

    /// `#123` or `#x1F600`, naming a character XML allows.
    private static func validReference(_ entity: String) -> Bool {
        guard entity.hasPrefix("#") else { return false }
        let digits = entity.dropFirst()
        let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        guard let value, !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "x") }) else { return false }
        return value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value) || (0xE000...0xFFFD).contains(value)
            || (0x10000...0x10FFFF).contains(value)
    }
}
