import MDMDiagnostics

/// The documents of one evaluation after replacement and `--skip-invalid` (*Device policies*).
public struct ProfileSet: Sendable {
    /// Every document given, in input order.
    public let documents: [ProfileDocument]
    /// How each document took part.
    public let profiles: [ProfileStatus]
    /// Payloads of the loaded documents, in input order.
    public let payloads: [Payload]
    /// Errors of every document, plus MC5011 for each skipped one.
    public let diagnostics: [PolicyFinding]
    /// Lints of the loaded documents and `L_PROFILE_REPLACED`.
    public let loadLints: [PolicyFinding]
    /// False when a document has an error and invalid documents are not skipped (exit 78).
    public let isUsable: Bool

    /// The set of `documents`: a later document replaces an earlier one with its identifier, and with
    /// `skipInvalid` invalid documents are left out instead of making the set unusable.
    public init(documents: [ProfileDocument], skipInvalid: Bool) {
        self.documents = documents
        var diagnostics: [PolicyFinding] = []
        var statuses: [ProfileStatus.Status] = []
        var usable = true
        for document in documents {
            diagnostics += document.diagnostics
            guard document.isValid, document.identifier != nil else {
                if skipInvalid {
                    statuses.append(.skipped)
                    let diagnostic = Diagnostic(
                        DevicePolicyCode.profileSkipped, severity: .warning,
                        message: "skipped \(document.file): it has errors (--skip-invalid)",
                        location: SourceLocation(file: document.file))
                    diagnostics.append(PolicyFinding(diagnostic, profile: document.identifier))
                } else {
                    statuses.append(.loaded)
                    usable = false
                }
                continue
            }
            statuses.append(.loaded)
        }
        var lints: [PolicyFinding] = []
        var latest: [String: Int] = [:]
        for (position, document) in documents.enumerated() where statuses[position] == .loaded {
            guard let identifier = document.identifier else { continue }
            if let earlier = latest[identifier] {
                statuses[earlier] = .replaced
                let diagnostic = Diagnostic(
                    PolicyLint.profileReplaced.code, severity: PolicyLint.profileReplaced.severity,
                    message:
                        "profile '\(identifier)' in \(document.file) replaces the one in \(documents[earlier].file)",
                    location: SourceLocation(file: document.file),
                    notes: [.init("replaced profile", at: SourceLocation(file: documents[earlier].file))])
                lints.append(PolicyFinding(diagnostic, profile: identifier))
            }
            latest[identifier] = position
        }
        var payloads: [Payload] = []
        for (position, document) in documents.enumerated() where statuses[position] == .loaded {
            payloads += document.payloads
            lints += document.lints
        }
        self.profiles = documents.enumerated().map { position, document in
            ProfileStatus(
                identifier: document.identifier, file: document.file, status: statuses[position],
                inputPosition: position)
        }
        .sorted { lhs, rhs in
            guard lhs.identifier != rhs.identifier else { return lhs.inputPosition < rhs.inputPosition }
            guard let left = lhs.identifier else { return true }
            guard let right = rhs.identifier else { return false }
            return String.utf8Less(left, right)
        }
        self.payloads = payloads
        self.diagnostics = diagnostics
        self.loadLints = lints
        self.isUsable = usable
    }
}
