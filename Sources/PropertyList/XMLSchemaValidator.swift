import CLibXML2
import MDMDiagnostics

/// Structural validation of an XML document against an XSD with libxml2, reporting every error, not only
/// the first. Run it only on documents `XMLElementReader` has read without findings: that reader enforces
/// the hardening (no entities, limits) that this second, tree-building parse then relies on.
public struct XMLSchemaValidator: Sendable {
    /// One XSD violation: the line of the offending element, its name, and libxml2's message.
    public struct Finding: Sendable, Hashable {
        /// The line libxml2 reports.
        public var line: Int
        /// The element it is about, when libxml2 names one.
        public var element: String?
        /// libxml2's message.
        public var message: String
    }

    /// The XSD could not be compiled (a defect of the bundled schema, never of user input).
    public struct SchemaError: Error, Sendable {
        /// libxml2's messages about the schema.
        public var messages: [String]
    }

    private let xsd: [UInt8]

    /// A validator for the XSD in `xsd` (UTF-8 text).
    public init(xsd: String) { self.xsd = Array(xsd.utf8) }

    /// Every way `document` departs from the schema; throws when the schema itself does not compile.
    public func validate(_ document: [UInt8]) throws(SchemaError) -> [Finding] {
        LibXML2.setUp()
        mdmconf_silence_generic_errors()
        let collector = FindingCollector()
        let context = Unmanaged.passUnretained(collector).toOpaque()

        guard
            let parserContext = xsd.withUnsafeBufferPointer({ buffer in
                buffer.baseAddress.flatMap {
                    $0.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                        xmlSchemaNewMemParserCtxt($0, Int32(buffer.count))
                    }
                }
            })
        else { throw SchemaError(messages: ["cannot create an XSD parser"]) }
        defer { xmlSchemaFreeParserCtxt(parserContext) }
        xmlSchemaSetParserStructuredErrors(parserContext, LibXML2Schema.collect, context)
        guard let schema = xmlSchemaParse(parserContext) else {
            throw SchemaError(messages: collector.findings.map(\.message))
        }
        defer { xmlSchemaFree(schema) }
        collector.findings.removeAll()

        let options =
            XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_IGNORE_ENC.rawValue
        let parsed = document.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.flatMap {
                $0.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    xmlReadMemory($0, Int32(buffer.count), nil, nil, Int32(options))
                }
            }
        }
        guard let tree = parsed else { return [] }
        defer { xmlFreeDoc(tree) }
        guard let validation = xmlSchemaNewValidCtxt(schema) else { throw SchemaError(messages: ["cannot validate"]) }
        defer { xmlSchemaFreeValidCtxt(validation) }
        xmlSchemaSetValidStructuredErrors(validation, LibXML2Schema.collect, context)
        _ = xmlSchemaValidateDoc(validation, tree)
        return collector.findings
    }
}

private final class FindingCollector {
    var findings: [XMLSchemaValidator.Finding] = []
}

private enum LibXML2Schema {
    // The error callback only: set-up is `LibXML2.setUp()`, shared with the SAX parser.
    static let collect: xmlStructuredErrorFunc = { context, error in
        guard let context, let error else { return }
        let collector = Unmanaged<FindingCollector>.fromOpaque(context).takeUnretainedValue()
        var message = error.pointee.message.map { String(cString: $0) } ?? "schema error"
        while message.last == "\n" || message.last == " " { message.removeLast() }
        var element: String?
        if let node = error.pointee.node?.assumingMemoryBound(to: xmlNode.self), let name = node.pointee.name {
            element = String(cString: name)
        }
        collector.findings.append(.init(line: Int(error.pointee.line), element: element, message: message))
    }
}
