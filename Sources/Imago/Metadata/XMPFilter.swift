/// Keeps what imgproxy's `keep_copyright` keeps of an XMP packet: the `dc` properties `rights`,
/// `creator`, `contributor` and `publisher`, and every property of the `xmpRights` and `cc`
/// namespaces, in a fresh packet. A packet ``XMPElement`` cannot read, or a kept property that
/// uses a prefix it cannot resolve, is dropped, never written half-understood.
enum XMPFilter {
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let dublinCore = "http://purl.org/dc/elements/1.1/"
    static let rights = "http://ns.adobe.com/xap/1.0/rights/"
    static let creativeCommons = "http://creativecommons.org/ns#"
    static let keptDublinCore: Set<String> = ["rights", "creator", "contributor", "publisher"]

    /// The filtered packet, or `nil` when nothing is kept or `packet` cannot be read.
    static func copyright(_ packet: [UInt8]) -> [UInt8]? {
        guard let root = XMPElement.parse(packet) else { return nil }
        let scope: [String: String] = ["xml": "http://www.w3.org/XML/1998/namespace"]
        guard let (rdfElement, rdfScope) = findRDF(root, scope: scope),
            let rdfPrefix = XMPElement.prefix(of: rdfElement.name)
        else { return nil }
        var descriptions: [String] = []
        for child in rdfElement.children {
            guard case .element(let description) = child else { continue }
            var descriptionScope = rdfScope
            descriptionScope.merge(description.declarations) { $1 }
            guard resolve(description.name, descriptionScope).map({ $0 == (rdf, "Description") }) == true,
                descriptionScope[rdfPrefix] == rdf,
                let kept = keptDescription(description, scope: descriptionScope, rdfPrefix: rdfPrefix)
            else { continue }
            descriptions.append(kept)
        }
        guard !descriptions.isEmpty else { return nil }
        var output = "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
        output += "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><\(rdfPrefix):RDF xmlns:\(rdfPrefix)=\"\(rdf)\">"
        output += descriptions.joined()
        output += "</\(rdfPrefix):RDF></x:xmpmeta>\n<?xpacket end=\"w\"?>"
        return Array(output.utf8)
    }

    /// The namespace URI and local name of a qualified name in `scope`, or `nil` when its prefix is
    /// not declared (an unprefixed name resolves to the default namespace, if any).
    static func resolve(_ name: String, _ scope: [String: String]) -> (String, String)? {
        guard let uri = scope[XMPElement.prefix(of: name) ?? ""] else { return nil }
        return (uri, XMPElement.localName(of: name))
    }

    /// `rdf:RDF`: the root itself or a descendant (inside `x:xmpmeta`), with the scope inside it.
    private static func findRDF(_ element: XMPElement, scope: [String: String]) -> (XMPElement, [String: String])? {
        var inner = scope
        inner.merge(element.declarations) { $1 }
        if resolve(element.name, inner).map({ $0 == (rdf, "RDF") }) == true { return (element, inner) }
        for child in element.children {
            guard case .element(let element) = child else { continue }
            if let found = findRDF(element, scope: inner) { return found }
        }
        return nil
    }

    /// Whether a property of `uri` named `local` is kept.
    static func keeps(_ uri: String, _ local: String) -> Bool {
        uri == rights || uri == creativeCommons || (uri == dublinCore && keptDublinCore.contains(local))
    }

    /// One `rdf:Description` with the kept properties of `description` (attributes and elements),
    /// declaring every prefix they use; `nil` when none is kept.
    private static func keptDescription(_ description: XMPElement, scope: [String: String], rdfPrefix: String) -> String? {
        var attributes: [XMPElement.Attribute] = []
        var used: Set<String> = []
        for attribute in description.attributes where !attribute.name.hasPrefix("xmlns") {
            guard let prefix = XMPElement.prefix(of: attribute.name), let (uri, local) = resolve(attribute.name, scope),
                keeps(uri, local)
            else { continue }
            used.insert(prefix)
            attributes.append(attribute)
        }
        var properties: [XMPElement] = []
        for child in description.children {
            guard case .element(let property) = child, let (uri, local) = resolve(property.name, scope), keeps(uri, local),
                let prefixes = prefixesToDeclare(property, scope: scope)
            else { continue }
            used.formUnion(prefixes)
            properties.append(property)
        }
        guard !attributes.isEmpty || !properties.isEmpty else { return nil }
        var element = XMPElement(
            name: "\(rdfPrefix):Description",
            attributes: [XMPElement.Attribute(name: "\(rdfPrefix):about", value: "", quote: "\"")], children: [])
        for prefix in used.sorted() where prefix != rdfPrefix && prefix != "xml" {
            guard let uri = scope[prefix] else { return nil }
            element.attributes.append(XMPElement.Attribute(name: "xmlns:\(prefix)", value: uri, quote: "\""))
        }
        element.attributes += attributes
        element.children = properties.map { .element($0) }
        var output = ""
        element.serialized(into: &output)
        return output
    }

    /// The prefixes `element`'s subtree uses that it does not declare itself, all of which
    /// `scope` must resolve (with the same meaning as where they were written); `nil` when one
    /// cannot be resolved or a name is unprefixed (XMP properties always have a namespace).
    private static func prefixesToDeclare(_ element: XMPElement, scope: [String: String]) -> Set<String>? {
        var result: Set<String> = []
        var pending: [(XMPElement, Set<String>)] = [(element, [])]
        while let (current, declaredAbove) = pending.popLast() {
            let declared = declaredAbove.union(current.declarations.keys)
            guard !declared.contains("") else { return nil }  // default namespaces: not followed
            for name in [current.name] + current.attributes.map(\.name) where !name.hasPrefix("xmlns") {
                guard let prefix = XMPElement.prefix(of: name) else {
                    // Unprefixed attributes have no namespace; XMP writes none but allows them.
                    if name != current.name { continue }
                    return nil
                }
                if declared.contains(prefix) || prefix == "xml" { continue }
                guard scope[prefix] != nil else { return nil }
                result.insert(prefix)
            }
            for child in current.children {
                if case .element(let inner) = child { pending.append((inner, declared)) }
            }
        }
        return result
    }
}
