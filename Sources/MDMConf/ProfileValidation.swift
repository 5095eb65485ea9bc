import ConfigSchema
import MDMDiagnostics
import PropertyList

/// `mdmconf validate` of a configuration profile against Apple's schemas (*Apple's schemas*): the top level
/// against `TopLevel`, each payload of `PayloadContent` against `CommonPayloadKeys` and the schema of its
/// `PayloadType`, with the profile's own rules: unique `PayloadUUID`s and `PayloadIdentifier`s, UUIDs that are UUIDs,
/// a payload type that may be installed once appearing once, and, with a platform, the OS version and enrollment
/// each payload and key needs.
public struct ProfileValidation: Sendable {
    /// The platform, OS version and enrollment the profile is for, and the MDM's variable syntax.
    public var options: ValidationOptions
    /// The schema of an id (`TopLevel`, `com.apple.wifi.managed`), or nil when the search path has none.
    public var schema: @Sendable (String) -> ConfigSchema?
    /// The schema a payload of a type is checked against: the type's own keys with those of `CommonPayloadKeys`
    /// (``merged(_:_:)``). A caller that checks many profiles hands in one that keeps each merge.
    public var payloadSchema: @Sendable (String) -> ConfigSchema?

    /// A validation with `options`, finding schemas by id through `schema`, and payload schemas through
    /// `payloadSchema` (by default merged from `schema` for every payload).
    public init(
        options: ValidationOptions, schema: @escaping @Sendable (String) -> ConfigSchema?,
        payloadSchema: (@Sendable (String) -> ConfigSchema?)? = nil
    ) {
        self.options = options
        self.schema = schema
        self.payloadSchema =
            payloadSchema ?? { type in schema(type).map { Self.merged(schema("CommonPayloadKeys"), $0) } }
    }

    /// True for a plist whose root is a profile: `PayloadType` `Configuration` (the one type of a top level).
    public static func recognizes(_ document: PlistDocument) -> Bool {
        guard case .dictionary(let root)? = document.root?.value,
            case .string("Configuration")? = root["PayloadType"]?.value
        else { return false }
        return true
    }

    /// The ids of the schemas checking the profile in `document` reads: `TopLevel`, `CommonPayloadKeys` and each
    /// payload's type, in the order they appear.
    public static func schemaIDs(of document: PlistDocument) -> [String] {
        var ids = ["TopLevel", "CommonPayloadKeys"]
        guard case .dictionary(let top)? = document.root?.value,
            case .array(let payloads)? = top["PayloadContent"]?.value
        else { return ids }
        for node in payloads {
            if case .dictionary(let payload) = node.value, case .string(let type)? = payload["PayloadType"]?.value,
                !ids.contains(type)
            {
                ids.append(type)
            }
        }
        return ids
    }

    /// Every finding about the profile in `document`, after the reader's own.
    public func validate(_ document: PlistDocument) -> [Diagnostic] {
        guard let root = document.root, case .dictionary(let top) = root.value else {
            return Validator.validate(document, against: nil, options: options)
        }
        var findings = document.diagnostics
        let file = document.file
        if let schema = schema("TopLevel") {
            findings += Validator.validate(root, file: file, against: schema, at: .root, options: options)
        } else {
            findings.append(noSchema("TopLevel", file: file, at: root.position, path: .root))
        }
        let content = top["PayloadContent"]?.value
        var payloadCount = 0
        if case .array(let items)? = content { payloadCount = items.count }
        var identities = Identities(payloads: payloadCount)
        identities.note(top, file: file, path: .root, into: &findings)
        guard case .array(let payloads)? = content else { return findings }
        var typesSeen: [String: Int] = [:]
        let common = schema("CommonPayloadKeys")
        for (index, node) in payloads.enumerated() {
            let path = KeyPath.root.appending(key: "PayloadContent").appending(index: index)
            guard case .dictionary(let payload) = node.value else { continue }
            identities.note(payload, file: file, path: path, into: &findings)
            guard case .string(let type)? = payload["PayloadType"]?.value else { continue }
            typesSeen[type, default: 0] += 1
            guard let schema = payloadSchema(type) else {
                findings.append(noSchema(type, file: file, at: node.position, path: path))
                if let common {
                    findings += Validator.validate(node, file: file, against: common, at: path, options: options)
                        .filter { $0.code != SchemaCode.unknownKey }
                }
                continue
            }
            findings += Validator.validate(node, file: file, against: schema, at: path, options: options)
            findings += payloadFindings(schema, type: type, file: file, at: node.position, path: path)
            if typesSeen[type] == 2, allowsOne(schema) {
                findings.append(
                    Diagnostic(
                        SchemaCode.payloadNotMultiple, severity: .error,
                        message: "a second \(type) payload: only one may be installed",
                        location: SourceLocation(file: file, position: node.position), keyPath: path.diagnosticValue,
                        hint: "merge the two payloads into one"))
            }
        }
        return findings
    }

    /// One bare payload dictionary (`--payload-type`) checked as a payload of `type` inside a profile would be:
    /// its type's schema, the common keys allowed (`PayloadIdentifier` …, not required of a bare payload), and with
    /// a platform the payload type's own availability.
    public func validatePayload(_ document: PlistDocument, type: String) -> [Diagnostic] {
        guard let root = document.root, case .dictionary = root.value else {
            return Validator.validate(document, against: nil, options: options)
        }
        var common = schema("CommonPayloadKeys")
        if let keys = common?.keys {
            common?.keys = keys.map { key in
                var optional = key
                optional.required = false
                return optional
            }
        }
        guard let schema = schema(type).map({ Self.merged(common, $0) }) else {
            return document.diagnostics + [noSchema(type, file: document.file, at: root.position, path: .root)]
        }
        return document.diagnostics
            + Validator.validate(root, file: document.file, against: schema, at: .root, options: options)
            + payloadFindings(schema, type: type, file: document.file, at: root.position, path: .root)
    }

    /// The payload's own keys with the keys every payload has (the payload's schema wins where both name a key).
    public static func merged(_ common: ConfigSchema?, _ schema: consuming ConfigSchema) -> ConfigSchema {
        guard let common else { return schema }
        var merged = consume schema
        let named = names(merged.keys)
        merged.keys.insert(contentsOf: common.keys.filter { !named.contains($0.name) }, at: 0)
        return merged
    }

    /// The names of `keys`, read by index: iterating the keys would copy each one to read its name.
    private static func names(_ keys: [KeySpec]) -> Set<String> {
        var names = Set<String>(minimumCapacity: keys.count)
        for index in keys.indices { names.insert(keys[index].name) }
        return names
    }

    /// The payload type as a whole on the given platform, OS version and enrollment.
    func payloadFindings(
        _ schema: ConfigSchema, type: String, file: String, at position: SourcePosition, path: KeyPath
    ) -> [Diagnostic] {
        guard let platform = options.platform, let availability = schema.apple?.availability else { return [] }
        return availability.findings(
            name: "the \(type) payload", platform: platform, osVersion: options.osVersion,
            enrollment: options.enrollment, strict: true, unavailable: SchemaCode.unavailablePayload
        ).map {
            Diagnostic(
                $0.code, severity: $0.severity, message: $0.message,
                location: SourceLocation(file: file, position: position), keyPath: path.diagnosticValue)
        }
    }

    /// The schema says only one payload of the type may be installed: on the given platform, or on every platform
    /// the schema names when none is given.
    func allowsOne(_ schema: ConfigSchema) -> Bool {
        guard let rules = schema.apple?.availability.rules, !rules.isEmpty else { return false }
        if let platform = options.platform?.lowercased() { return rules[platform]?.multiple == false }
        return rules.values.allSatisfy { $0.multiple == false }
    }

    func noSchema(_ type: String, file: String, at position: SourcePosition, path: KeyPath) -> Diagnostic {
        Diagnostic(
            SchemaCode.unknownPayloadType, severity: .warning,
            message: "no schema for PayloadType '\(type)': its keys are not checked",
            location: SourceLocation(file: file, position: position), keyPath: path.diagnosticValue,
            hint: "put a checkout of apple/device-management (or a ProfileManifests checkout) on MDMCONF_SCHEMA_PATH")
    }

    /// The `PayloadUUID`s and `PayloadIdentifier`s seen so far.
    struct Identities {
        var uuids: [String: KeyPath] = [:]
        var identifiers: [String: KeyPath] = [:]

        /// Room for the identities of a profile of `payloads` payloads and its top level, made once.
        init(payloads: Int) {
            uuids.reserveCapacity(payloads + 1)
            identifiers.reserveCapacity(payloads + 1)
        }

        mutating func note(_ payload: PlistDictionary, file: String, path: KeyPath, into findings: inout [Diagnostic]) {
            if let node = payload["PayloadUUID"], case .string(let uuid) = node.value {
                // The location and key path are made only for a finding: this runs for every payload.
                var at: SourceLocation { SourceLocation(file: file, position: node.position) }
                var keyPath: String? { path.appending(key: "PayloadUUID").diagnosticValue }
                let key = uuid.uppercased()
                if !Self.isUUID(uuid) {
                    findings.append(
                        Diagnostic(
                            SchemaCode.invalidPayloadUUID, severity: .error,
                            message: "PayloadUUID '\(uuid)' is not a UUID", location: at, keyPath: keyPath,
                            hint: "36 characters: 8-4-4-4-12 hexadecimal digits, e.g. from uuidgen"))
                } else if let first = uuids[key] {
                    findings.append(
                        Diagnostic(
                            SchemaCode.duplicatePayloadID, severity: .error,
                            message:
                                "PayloadUUID '\(uuid)' is also the UUID of \(first.isRoot ? "the profile" : first.description)",
                            location: at, keyPath: keyPath, hint: "every payload needs a UUID of its own"))
                } else {
                    uuids[key] = path
                }
            }
            if let node = payload["PayloadIdentifier"], case .string(let identifier) = node.value {
                if let first = identifiers[identifier] {
                    findings.append(
                        Diagnostic(
                            SchemaCode.duplicatePayloadID, severity: .error,
                            message:
                                "PayloadIdentifier '\(identifier)' is also the identifier of \(first.isRoot ? "the profile" : first.description)",
                            location: SourceLocation(file: file, position: node.position),
                            keyPath: path.appending(key: "PayloadIdentifier").diagnosticValue,
                            hint: "a device replaces a payload that has the same identifier"))
                } else {
                    identifiers[identifier] = path
                }
            }
        }

        static func isUUID(_ text: String) -> Bool {
            var text = text
            return text.withUTF8 { bytes in
                guard bytes.count == 36 else { return false }
                for index in 0..<36 {
                    let byte = bytes[index]
                    if index == 8 || index == 13 || index == 18 || index == 23 {
                        guard byte == UInt8(ascii: "-") else { return false }
                    } else {
                        let lowered = byte | 0x20
                        guard (byte >= 0x30 && byte <= 0x39) || (lowered >= 0x61 && lowered <= 0x66) else {
                            return false
                        }
                    }
                }
                return true
            }
        }
    }
}
