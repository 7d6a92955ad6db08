import Foundation

/// Writes the `hdrgm` XMP packets of an Ultra HDR JPEG, the inverse of ``GainMapXMP/read(_:)``:
/// the primary image's (`hdrgm:Version` and a Google `Container:Directory` naming the primary image
/// and the gain map, with the gain map's length) and the gain map image's (its `hdrgm` fields), as
/// Adobe's specification and libultrahdr write them.
extension GainMapXMP {
    private static let header =
        "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\" x:xmptk=\"Imago\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
        + "<rdf:Description rdf:about=\"\" xmlns:hdrgm=\"\(namespace)\" xmlns:Container=\"http://ns.google.com/photos/1.0/container/\""
        + " xmlns:Item=\"http://ns.google.com/photos/1.0/container/item/\" hdrgm:Version=\"1.0\""
    private static let footer = "</rdf:Description></rdf:RDF></x:xmpmeta>"

    /// The primary image's packet, for a gain map image of `gainMapLength` bytes.
    static func primaryPacket(gainMapLength: Int) -> String {
        header + "><Container:Directory><rdf:Seq>"
            + "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"Primary\" Item:Mime=\"image/jpeg\"/></rdf:li>"
            + "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"GainMap\" Item:Mime=\"image/jpeg\" Item:Length=\"\(gainMapLength)\"/></rdf:li>"
            + "</rdf:Seq></Container:Directory>" + footer
    }

    /// The gain map image's packet for `metadata`: one attribute per field, or an `rdf:Seq` of
    /// three values where the channels differ. hdrgm names offsets and capacities by SDR and HDR.
    static func gainMapPacket(for metadata: GainMap.Metadata) -> String {
        let isHDR = metadata.baseRenditionIsHDR
        let channels = metadata.channels
        let fields: [(String, [Double])] = [
            ("GainMapMin", channels.map(\.gainMapMin)), ("GainMapMax", channels.map(\.gainMapMax)),
            ("Gamma", channels.map(\.gamma)),
            ("OffsetSDR", channels.map { isHDR ? $0.alternateOffset : $0.baseOffset }),
            ("OffsetHDR", channels.map { isHDR ? $0.baseOffset : $0.alternateOffset }),
            ("HDRCapacityMin", [isHDR ? metadata.alternateHeadroom : metadata.baseHeadroom]),
            ("HDRCapacityMax", [isHDR ? metadata.baseHeadroom : metadata.alternateHeadroom]),
        ]
        var attributes = ""
        var elements = ""
        for (name, values) in fields {
            if Set(values).count <= 1, let value = values.first {
                attributes += " hdrgm:\(name)=\"\(text(value))\""
            } else {
                let items = values.map { "<rdf:li>\(text($0))</rdf:li>" }.joined()
                elements += "<hdrgm:\(name)><rdf:Seq>\(items)</rdf:Seq></hdrgm:\(name)>"
            }
        }
        attributes += " hdrgm:BaseRenditionIsHDR=\"\(isHDR ? "True" : "False")\""
        return header + attributes + ">" + elements + footer
    }

    /// `value` in plain decimal notation (no exponent, which not every XMP reader takes), to a
    /// precision far beyond what an 8-bit map shows.
    static func text(_ value: Double) -> String {
        var digits = String(format: "%.9f", value)
        while digits.hasSuffix("0") { digits.removeLast() }
        if digits.hasSuffix(".") { digits.removeLast() }
        return digits == "-0" ? "0" : digits
    }
}
