import Foundation

/// Reads Adobe's `hdrgm` gain map XMP (Ultra HDR): the namespace
/// `http://ns.adobe.com/hdr-gain-map/1.0/` under whatever prefix the packet binds it to, each
/// field as an attribute (`hdrgm:GainMapMax="2.3"`) or an element (`<hdrgm:GainMapMax>2.3</…>`),
/// per-channel values as an `rdf:Seq` of three `rdf:li`.
///
/// Not an XML parser: a bounded scan of one `APP1` packet (at most 64 KB) for the few fields it
/// needs, which is all Ultra HDR readers do. Stops are log2, as the format stores them.
enum GainMapXMP {
    /// The `APP1` identifier of an XMP packet, with its terminating NUL.
    static let identifier: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    /// The `hdrgm` namespace.
    static let namespace = "http://ns.adobe.com/hdr-gain-map/1.0/"

    /// The prefix `xmp` binds to the `hdrgm` namespace, or `nil` when it does not declare it.
    static func prefix(in xmp: String) -> String? {
        for quote in ["\"", "'"] {
            guard let found = xmp.range(of: quote + namespace + quote) else { continue }
            // Back over `=` and spaces to the attribute name, which must be `xmlns:PREFIX`.
            var name = xmp[..<found.lowerBound].suffix(80)
            while let last = name.last, last == " " || last == "=" || last == "\n" || last == "\t" || last == "\r" { name = name.dropLast() }
            guard let declaration = name.range(of: "xmlns:", options: .backwards) else { return nil }
            let prefix = name[declaration.upperBound...]
            return prefix.isEmpty || prefix.contains(where: { $0 == " " || $0 == "<" || $0 == "\"" }) ? nil : String(prefix)
        }
        return nil
    }

    /// Whether `xmp` declares an `hdrgm:Version`: the primary image's sign that a gain map follows.
    static func declaresVersion(_ xmp: String) -> Bool {
        guard let prefix = prefix(in: xmp) else { return false }
        return values(of: "Version", prefix: prefix, in: xmp) != nil
    }

    /// The gain map metadata `xmp` gives; `nil` when it has no `hdrgm` version (no gain map
    /// metadata at all), an error when its fields are missing, unreadable or out of range.
    static func read(_ xmp: String) -> Result<GainMap.Metadata, GainMapProblem>? {
        guard let prefix = prefix(in: xmp), let version = values(of: "Version", prefix: prefix, in: xmp) else { return nil }
        guard version.first?.split(separator: ".").first == "1" else {
            return .failure(GainMapProblem("the hdrgm XMP is version \(version.first ?? "?"); Imago reads version 1"))
        }
        func numbers(_ name: String, default value: Double?) -> Result<[Double], GainMapProblem> {
            guard let texts = values(of: name, prefix: prefix, in: xmp) else {
                guard let value else { return .failure(GainMapProblem("the hdrgm XMP has no \(prefix):\(name)")) }
                return .success([value])
            }
            guard texts.count == 1 || texts.count == 3 else {
                return .failure(GainMapProblem("the hdrgm XMP's \(prefix):\(name) has \(texts.count) values; it takes 1 or 3"))
            }
            var result: [Double] = []
            for text in texts {
                guard let number = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), number.isFinite else {
                    return .failure(GainMapProblem("the hdrgm XMP's \(prefix):\(name) is not a number: \(text.prefix(40))"))
                }
                result.append(number)
            }
            return .success(result)
        }
        do throws(GainMapProblem) {
            let minimum = try numbers("GainMapMin", default: 0).get()
            let maximum = try numbers("GainMapMax", default: nil).get()
            let gamma = try numbers("Gamma", default: 1).get()
            let offsetSDR = try numbers("OffsetSDR", default: 1.0 / 64).get()
            let offsetHDR = try numbers("OffsetHDR", default: 1.0 / 64).get()
            let capacityMin = try numbers("HDRCapacityMin", default: 0).get()
            let capacityMax = try numbers("HDRCapacityMax", default: nil).get()
            guard capacityMin.count == 1, capacityMax.count == 1 else {
                throw GainMapProblem("the hdrgm XMP's HDR capacities take one value each")
            }
            let baseIsHDR: Bool
            switch values(of: "BaseRenditionIsHDR", prefix: prefix, in: xmp)?.first?.lowercased() {
            case nil, "false", "0": baseIsHDR = false
            case "true", "1": baseIsHDR = true
            case let other?: throw GainMapProblem("the hdrgm XMP's BaseRenditionIsHDR is \(other.prefix(20)), not True or False")
            }
            let perChannel = [minimum, maximum, gamma, offsetSDR, offsetHDR]
            let count = perChannel.contains { $0.count == 3 } ? 3 : 1
            func value(_ values: [Double], _ channel: Int) -> Double { values.count == 3 ? values[channel] : values[0] }
            // hdrgm names the offsets and capacities by SDR and HDR; ISO by base and alternate.
            let channels = (0..<count).map { channel in
                GainMap.Metadata.Channel(
                    gainMapMin: value(minimum, channel), gainMapMax: value(maximum, channel), gamma: value(gamma, channel),
                    baseOffset: value(baseIsHDR ? offsetHDR : offsetSDR, channel),
                    alternateOffset: value(baseIsHDR ? offsetSDR : offsetHDR, channel))
            }
            let metadata = GainMap.Metadata(
                channels: channels, baseHeadroom: baseIsHDR ? capacityMax[0] : capacityMin[0],
                alternateHeadroom: baseIsHDR ? capacityMin[0] : capacityMax[0], baseRenditionIsHDR: baseIsHDR,
                usesBaseColorSpace: true, sources: [.hdrgmXMP])
            if let problem = metadata.problem { throw GainMapProblem("the hdrgm XMP: \(problem)") }
            return .success(metadata)
        } catch {
            return .failure(error)
        }
    }

    /// The text values of field `name`: one for an attribute or a plain element, each `rdf:li` of
    /// an element holding a list; `nil` when the packet has no such field.
    static func values(of name: String, prefix: String, in xmp: String) -> [String]? {
        let qualified = prefix + ":" + name
        var searchFrom = xmp.startIndex
        // A field name can also appear inside other text; look at its first few occurrences only.
        for _ in 0..<16 {
            guard let found = xmp.range(of: qualified, range: searchFrom..<xmp.endIndex) else { return nil }
            searchFrom = found.upperBound
            let before = found.lowerBound > xmp.startIndex ? xmp[xmp.index(before: found.lowerBound)] : " "
            let rest = xmp[found.upperBound...]
            if before == "<" {
                // An element: its content runs to the closing tag.
                guard let next = rest.first, next == ">" || next == " " || next == "\n" || next == "\t" || next == "\r",
                    let open = rest.firstIndex(of: ">"), xmp[xmp.index(before: open)] != "/",
                    let close = xmp.range(of: "</" + qualified + ">", range: open..<xmp.endIndex)
                else { continue }
                let content = xmp[xmp.index(after: open)..<close.lowerBound]
                return content.contains("<rdf:li") ? listItems(content) : [String(content)]
            } else if before.isWhitespace {
                // An attribute: `name = "value"`.
                let afterName = rest.drop(while: \.isWhitespace)
                guard afterName.first == "=" else { continue }
                let value = afterName.dropFirst().drop(while: \.isWhitespace)
                guard let quote = value.first, quote == "\"" || quote == "'" else { continue }
                let text = value.dropFirst()
                guard let end = text.firstIndex(of: quote) else { return nil }
                return [String(text[..<end])]
            }
        }
        return nil
    }

    /// The texts of the `rdf:li` elements in `content` (at most 8 looked at).
    private static func listItems(_ content: Substring) -> [String] {
        var items: [String] = []
        var rest = content
        while items.count < 8, let open = rest.range(of: "<rdf:li") {
            guard let tagEnd = rest[open.upperBound...].firstIndex(of: ">"),
                let close = rest.range(of: "</rdf:li>", range: tagEnd..<rest.endIndex)
            else { break }
            items.append(String(rest[rest.index(after: tagEnd)..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return items
    }
}
