import ConfigSchema
import MDMDiagnostics
import PropertyList

/// What one declaration is and what it names: read by ``DeclarationValidation/summary(_:)`` from each file, checked
/// together by ``DeclarationSet`` when several declarations are validated at once (a folder, a server's set).
public struct DeclarationSummary: Sendable {
    /// One identifier a declaration names.
    public struct Reference: Sendable {
        /// The identifier named.
        public var identifier: String
        /// The declaration types it may name (a key's `assettypes`), or nil: any configuration (an activation's
        /// `StandardConfigurations`).
        public var types: [String]?
        /// Where the identifier is written, and at which key path.
        public var position: SourcePosition
        /// The key path of the reference in the declaration.
        public var keyPath: String

        /// A reference to `identifier`, of one of `types` (nil: a configuration), written at `position`.
        public init(identifier: String, types: [String]?, position: SourcePosition, keyPath: String) {
            (self.identifier, self.types, self.position, self.keyPath) = (identifier, types, position, keyPath)
        }
    }

    /// The file the declaration is in.
    public var file: String
    /// Its `Identifier` and `Type`.
    public var identifier: String
    /// Its `Type` (`com.apple.configuration.app.managed` …).
    public var type: String
    /// Where `Identifier` is written.
    public var position: SourcePosition
    /// Every identifier it names.
    public var references: [Reference]

    /// A summary of the declaration `identifier` of `type` in `file`.
    public init(
        file: String, identifier: String, type: String, position: SourcePosition, references: [Reference]
    ) {
        (self.file, self.identifier, self.type, self.position) = (file, identifier, type, position)
        self.references = references
    }
}

/// The rules of a set of declarations: identifiers are unique, every reference names a declaration of the set of a
/// type it may name, and no declarations name each other in a circle.
public enum DeclarationSet {
    /// The findings of the set, by file.
    public static func check(_ declarations: [DeclarationSummary]) -> [String: [Diagnostic]] {
        var findings: [String: [Diagnostic]] = [:]
        var byIdentifier: [String: DeclarationSummary] = [:]
        for declaration in declarations {
            if let first = byIdentifier[declaration.identifier] {
                findings[declaration.file, default: []].append(
                    Diagnostic(
                        SchemaCode.duplicatePayloadID, severity: .error,
                        message: "Identifier '\(declaration.identifier)' is also the identifier of \(first.file)",
                        location: SourceLocation(file: declaration.file, position: declaration.position),
                        keyPath: "Identifier", hint: "a device keeps one declaration per identifier"))
            } else {
                byIdentifier[declaration.identifier] = declaration
            }
        }
        for declaration in declarations {
            for reference in declaration.references {
                let at = SourceLocation(file: declaration.file, position: reference.position)
                guard let target = byIdentifier[reference.identifier] else {
                    findings[declaration.file, default: []].append(
                        Diagnostic(
                            SchemaCode.unresolvedReference, severity: .error,
                            message: "'\(reference.identifier)' is not the identifier of a declaration of the set",
                            location: at, keyPath: reference.keyPath,
                            hint: "the identifiers are \(byIdentifier.keys.sorted().prefix(8).joined(separator: ", "))"))
                    continue
                }
                let allowed = reference.types.map { $0.contains(target.type) } ?? target.type.hasPrefix(
                    "com.apple.configuration.")
                if !allowed {
                    findings[declaration.file, default: []].append(
                        Diagnostic(
                            SchemaCode.unresolvedReference, severity: .error,
                            message:
                                "'\(reference.identifier)' is a \(target.type), not \(reference.types.map { "one of \($0.joined(separator: ", "))" } ?? "a configuration")",
                            location: at, keyPath: reference.keyPath))
                }
            }
        }
        for cycle in cycles(byIdentifier) {
            guard let first = byIdentifier[cycle[0]] else { continue }
            findings[first.file, default: []].append(
                Diagnostic(
                    SchemaCode.referenceCycle, severity: .error,
                    message: "the declarations name each other in a circle: \((cycle + [cycle[0]]).joined(separator: " → "))",
                    location: SourceLocation(file: first.file, position: first.position), keyPath: "Identifier"))
        }
        return findings
    }

    /// Each circle of references once, starting at its smallest identifier.
    static func cycles(_ byIdentifier: [String: DeclarationSummary]) -> [[String]] {
        var found: Set<[String]> = []
        var state: [String: Int] = [:]  // 1 on the path, 2 done
        var path: [String] = []
        func visit(_ identifier: String) {
            state[identifier] = 1
            path.append(identifier)
            for reference in byIdentifier[identifier]?.references ?? [] where byIdentifier[reference.identifier] != nil {
                switch state[reference.identifier] {
                case 1?:
                    guard let start = path.firstIndex(of: reference.identifier) else { continue }
                    let circle = Array(path[start...])
                    let smallest = circle.indices.min { circle[$0] < circle[$1] } ?? 0
                    found.insert(Array(circle[smallest...] + circle[..<smallest]))
                case nil: visit(reference.identifier)
                default: break
                }
            }
            path.removeLast()
            state[identifier] = 2
        }
        for identifier in byIdentifier.keys.sorted() where state[identifier] == nil { visit(identifier) }
        return found.sorted { $0.joined() < $1.joined() }
    }
}
