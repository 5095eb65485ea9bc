import CivilTime
import MDMDiagnostics
import PropertyList

/// Reads configuration profiles and bare payloads (*Device policies*): every document is checked
/// completely, and every error is reported with its profile, payload and key path.
public struct ProfileLoader: Sendable {
    /// The limits every profile is read with.
    public var readerOptions: PlistReaderOptions

    /// A loader reading with `readerOptions`.
    public init(readerOptions: PlistReaderOptions = PlistReaderOptions()) { self.readerOptions = readerOptions }

    /// Loads the file at `path` (`-` for standard input); only an unreadable file throws.
    public func load(path: String) throws(InputError) -> ProfileDocument {
        let name = path == "-" ? InputFile.standardInputName : path
        switch try InputFile.read(path, limit: readerOptions.maxInputSize) {
        case .bytes(let bytes): return load(bytes, file: name)
        case .tooLarge(let size):
            let diagnostic = PlistCode.fileTooLarge(size: size, limit: readerOptions.maxInputSize, file: name)
            return ProfileDocument(
                file: name, identifier: nil, payloads: [], diagnostics: [.init(diagnostic)], lints: [])
        }
    }

    /// The profile (or bare payload) in `bytes`, findings reported against `file`.
    public func load(_ bytes: [UInt8], file: String) -> ProfileDocument {
        if Self.isSigned(bytes) {
            let diagnostic = Diagnostic(
                DevicePolicyCode.unsupportedProfileEncoding, severity: .error,
                message: "signed (CMS) profiles are not read", location: SourceLocation(file: file),
                hint: "openssl smime -verify -noverify -inform DER -in signed.mobileconfig -out plain.mobileconfig")
            return ProfileDocument(
                file: file, identifier: nil, payloads: [], diagnostics: [.init(diagnostic)], lints: [])
        }
        return load(PropertyListReader(options: readerOptions).read(bytes, file: file))
    }

    /// True for a root dict with a string `PayloadType` and no ProfileManifest `pfm_` keys: a configuration
    /// profile or a bare payload.
    public static func recognizes(_ document: PlistDocument) -> Bool {
        guard let root = document.root, case .dictionary(let dict) = root.value,
            let type = dict["PayloadType"], case .string = type.value
        else { return false }
        return !dict.keys.contains { $0.hasPrefix("pfm_") }
    }

    /// Loads a document already read.
    public func load(_ document: PlistDocument) -> ProfileDocument {
        let file = document.file
        let readerFindings = document.diagnostics.map { PolicyFinding($0) }
        guard let root = document.root, !document.hasErrors else {
            return ProfileDocument(file: file, identifier: nil, payloads: [], diagnostics: readerFindings, lints: [])
        }
        var reader = DocumentReader(file: file)
        reader.findings = readerFindings
        let (identifier, payloads) = reader.read(root)
        // Findings in document order, whatever order the checks ran in.
        let ordered = reader.findings.enumerated().sorted { lhs, rhs in
            let l = (lhs.element.diagnostic.line ?? 0, lhs.element.diagnostic.column ?? 0, lhs.offset)
            let r = (rhs.element.diagnostic.line ?? 0, rhs.element.diagnostic.column ?? 0, rhs.offset)
            return l < r
        }
        return ProfileDocument(
            file: file, identifier: identifier, payloads: payloads, diagnostics: ordered.map(\.element),
            lints: reader.lints)
    }

    /// A DER `SEQUENCE` (CMS SignedData) rather than text or `bplist00`.
    static func isSigned(_ bytes: [UInt8]) -> Bool {
        bytes.count > 2 && bytes[0] == 0x30 && (0x80...0x84).contains(bytes[1])
    }
}

/// Reading one document: the profile envelope, then each payload.
struct DocumentReader {
    let file: String
    var findings: [PolicyFinding] = []
    var lints: [PolicyFinding] = []
    var profile: String?
    var payload: String?

    init(file: String) { self.file = file }

    static let profileKeys: Set<String> = [
        "PayloadType", "PayloadIdentifier", "PayloadUUID", "PayloadVersion", "PayloadContent", "PayloadDisplayName",
        "PayloadDescription", "PayloadOrganization", "PayloadRemovalDisallowed", "PayloadScope", "RemovalDate",
        "DurationUntilRemoval", "ConsentText", "HasRemovalPasscode", "IsEncrypted", "PayloadExpirationDate",
        "TargetDeviceType", "EncryptedPayloadContent", "MDMConfSchedule",
    ]
    static let payloadKeys: Set<String> = [
        "PayloadType", "PayloadIdentifier", "PayloadUUID", "PayloadVersion", "PayloadDisplayName",
        "PayloadDescription", "PayloadOrganization", "MDMConfSchedule",
    ]

    mutating func read(_ root: PlistNode) -> (String?, [Payload]) {
        guard case .dictionary(let dict) = root.value else {
            error(DevicePolicyCode.notAProfile, "the root is a \(root.value.typeName), not a dict", root.position, nil)
            return (nil, [])
        }
        if dict["PayloadType"] == nil, dict["Type"] != nil, dict["Identifier"] != nil {
            return readDeclaration(dict, root)
        }
        let type = string(dict, "PayloadType", path: nil, at: root.position)
        guard type == "Configuration" else {
            // A bare payload: a one-payload profile identified by its own PayloadIdentifier.
            let identifier = string(dict, "PayloadIdentifier", path: nil, at: root.position)
            profile = identifier
            if let encrypted = dict.entry("EncryptedPayloadContent") { encryptedProfile(encrypted) }
            guard let type, let identifier else { return (identifier, []) }
            let payload = readPayload(dict, type: type, identifier: identifier, at: root.position)
            return (identifier, payload.map { [$0] } ?? [])
        }
        let identifier = string(dict, "PayloadIdentifier", path: nil, at: root.position)
        profile = identifier
        if dict["PayloadUUID"] == nil {
            lint(.missingUUID, "profile has no PayloadUUID", root.position, nil)
        }
        for entry in dict.entries {
            switch entry.key {
            case "PayloadVersion": requireType(entry, "integer", path: entry.key)
            case "RemovalDate", "DurationUntilRemoval":
                lint(
                    .removalNotEvaluated, "'\(entry.key)' is not evaluated: the profile counts as installed",
                    entry.keyPosition, entry.key)
            case "EncryptedPayloadContent": encryptedProfile(entry)
            case "MDMConfSchedule":
                lint(
                    .unknownKey, "MDMConfSchedule belongs in a payload, not the profile: ignored here",
                    entry.keyPosition, entry.key)
            case let key where !Self.profileKeys.contains(key):
                lint(
                    .unknownKey, "unknown profile key '\(key)'", entry.keyPosition, key,
                    hint: Suggestion.closest(to: key, in: Array(Self.profileKeys)).map { "did you mean '\($0)'?" })
            default: break
            }
        }
        guard let contentEntry = dict.entry("PayloadContent") else { return (identifier, []) }
        guard case .array(let items) = contentEntry.value.value else {
            wrongType(contentEntry.value, expected: "array", path: "PayloadContent")
            return (identifier, [])
        }
        var payloads: [Payload] = []
        var seen: [String: SourcePosition] = [:]
        for (index, item) in items.enumerated() {
            let prefix = "PayloadContent[\(index)]"
            guard case .dictionary(let payloadDict) = item.value else {
                wrongType(item, expected: "dict", path: prefix)
                continue
            }
            let type = string(payloadDict, "PayloadType", path: prefix, at: item.position)
            let payloadID = string(payloadDict, "PayloadIdentifier", path: prefix, at: item.position)
            if let payloadID {
                if let first = seen[payloadID] {
                    error(
                        DevicePolicyCode.duplicatePayloadIdentifier,
                        "payload identifier '\(payloadID)' is used twice in this profile", item.position, prefix,
                        notes: [.init("first used here", at: SourceLocation(file: file, position: first))])
                } else {
                    seen[payloadID] = item.position
                }
            }
            guard let type, let payloadID, let identifier else { continue }
            if let payload = readPayload(payloadDict, type: type, identifier: payloadID, at: item.position) {
                payloads.append(payload)
            }
        }
        return (identifier, payloads)
    }

    /// A declarative-management declaration (JSON: `Type`, `Identifier`, `Payload`): one payload of its type, named
    /// by its identifier as profile and payload. Only `restriction` questions read it (``RestrictionKey``).
    private mutating func readDeclaration(_ dict: PlistDictionary, _ root: PlistNode) -> (String?, [Payload]) {
        let identifier = string(dict, "Identifier", path: nil, at: root.position)
        profile = identifier
        guard let type = string(dict, "Type", path: nil, at: root.position), let identifier else {
            return (identifier, [])
        }
        var payload = PlistDictionary()
        if let entry = dict.entry("Payload") {
            guard case .dictionary(let content) = entry.value.value else {
                wrongType(entry.value, expected: "dict", path: "Payload")
                return (identifier, [])
            }
            payload = content
        }
        let info = PayloadInfo(
            profile: identifier, identifier: identifier, type: type, file: file, position: root.position)
        return (identifier, [Payload(info: info, schedule: nil, content: .other(payload))])
    }

    private mutating func encryptedProfile(_ entry: PlistDictionary.Entry) {
        error(
            DevicePolicyCode.unsupportedProfileEncoding, "encrypted profiles (EncryptedPayloadContent) are not read",
            entry.keyPosition, entry.key,
            hint: "export the profile unencrypted from the MDM, or decrypt it with the device identity first")
    }

    /// Reads one payload dict; nil when it has no profile identifier to belong to.
    private mutating func readPayload(
        _ dict: PlistDictionary, type: String, identifier: String, at position: SourcePosition
    ) -> Payload? {
        guard let profile else { return nil }
        payload = identifier
        defer { payload = nil }
        let info = PayloadInfo(profile: profile, identifier: identifier, type: type, file: file, position: position)
        if dict["PayloadUUID"] == nil { lint(.missingUUID, "payload has no PayloadUUID", position, nil) }
        for entry in dict.entries {
            switch entry.key {
            case "PayloadVersion": requireType(entry, "integer", path: entry.key)
            case "PayloadDisplayName", "PayloadDescription", "PayloadOrganization", "PayloadUUID":
                requireType(entry, "string", path: entry.key)
            case "RemovalDate", "DurationUntilRemoval":
                lint(.removalNotEvaluated, "'\(entry.key)' is not evaluated", entry.keyPosition, entry.key)
            default: break
            }
        }
        let schedule = dict.entry("MDMConfSchedule").flatMap { readSchedule($0) }
        var keys = PayloadKeys(dict: dict)
        let content: Payload.Content
        switch type {
        case Payload.restrictionsType: content = .restrictions(readRestrictions(&keys))
        case Payload.appLockType:
            guard let lock = readAppLock(&keys, at: position) else { return nil }
            content = .appLock(lock)
        case Payload.webFilterType: content = .webFilter(readWebFilter(&keys))
        case Payload.wifiType: content = .wifi(readWiFi(&keys, dict: dict, at: position))
        case Payload.wifiRestrictionsType: content = .wifiRestrictions(readWiFiRestrictions(&keys))
        case Payload.vpnType:
            guard let vpn = readVPN(&keys, at: position) else { return nil }
            content = .vpn(vpn)
        default:
            lint(.unknownPayloadType, "payload type '\(type)' is not evaluated", position, nil)
            return Payload(info: info, schedule: schedule, content: .other(dict))
        }
        lintUnknownKeys(keys, type: type)
        return Payload(info: info, schedule: schedule, content: content)
    }

    private mutating func lintUnknownKeys(_ keys: PayloadKeys, type: String) {
        let known: Set<String> =
            switch type {
            case Payload.restrictionsType: AppleKeyNames.restrictions
            case Payload.appLockType: AppleKeyNames.appLock
            case Payload.webFilterType: AppleKeyNames.webContentFilter
            case Payload.wifiType: AppleKeyNames.wifi
            case Payload.vpnType: AppleKeyNames.vpn
            default: []
            }
        for entry in keys.dict.entries
        where !keys.used.contains(entry.key) && !known.contains(entry.key) && !Self.payloadKeys.contains(entry.key)
            && entry.key != "RemovalDate" && entry.key != "DurationUntilRemoval"
        {
            let candidates = Array(known.union(keys.evaluated))
            lint(
                .unknownKey, "unknown key '\(entry.key)' for \(type)", entry.keyPosition, entry.key,
                hint: Suggestion.closest(to: entry.key, in: candidates).map { "did you mean '\($0)'?" })
        }
    }

    // MARK: - Findings

    mutating func error(
        _ code: DiagnosticCode, _ message: String, _ position: SourcePosition, _ keyPath: String?,
        hint: String? = nil, notes: [Diagnostic.Note] = []
    ) {
        let diagnostic = Diagnostic(
            code, severity: .error, message: message, location: SourceLocation(file: file, position: position),
            keyPath: keyPath, hint: hint, notes: notes)
        findings.append(PolicyFinding(diagnostic, profile: profile, payload: payload))
    }

    mutating func lint(
        _ lint: PolicyLint, _ message: String, _ position: SourcePosition, _ keyPath: String?, hint: String? = nil
    ) {
        let diagnostic = Diagnostic(
            lint.code, severity: lint.severity, message: message,
            location: SourceLocation(file: file, position: position), keyPath: keyPath, hint: hint)
        lints.append(PolicyFinding(diagnostic, profile: profile, payload: payload))
    }

    mutating func wrongType(_ node: PlistNode, expected: String, path: String) {
        error(
            DevicePolicyCode.wrongType,
            "'\(path)' must be \(article(expected)) \(expected), found \(node.value.typeName)",
            node.position, path)
    }

    private func article(_ type: String) -> String { type.first.map { "aeiou".contains($0) } == true ? "an" : "a" }

    mutating func requireType(_ entry: PlistDictionary.Entry, _ type: String, path: String) {
        if entry.value.value.typeName != type { wrongType(entry.value, expected: type, path: path) }
    }

    /// A required non-empty string (MC5002 when absent, MC5003 wrong type, MC5004 empty).
    mutating func string(_ dict: PlistDictionary, _ key: String, path: String?, at position: SourcePosition) -> String?
    {
        let keyPath = path.map { "\($0).\(key)" } ?? key
        guard let node = dict[key] else {
            error(DevicePolicyCode.missingRequiredKey, "missing required key '\(key)'", position, path)
            return nil
        }
        guard case .string(let value) = node.value else {
            wrongType(node, expected: "string", path: keyPath)
            return nil
        }
        guard !value.isEmpty else {
            error(DevicePolicyCode.invalidValue, "'\(keyPath)' must not be empty", node.position, keyPath)
            return nil
        }
        return value
    }

    // MARK: - Schedules

    private mutating func readSchedule(_ entry: PlistDictionary.Entry) -> [ScheduleWindow]? {
        guard case .array(let items) = entry.value.value else {
            wrongType(entry.value, expected: "array", path: entry.key)
            return nil
        }
        if items.isEmpty {
            lint(.scheduleNever, "empty MDMConfSchedule: the payload is never active", entry.keyPosition, entry.key)
            return []
        }
        var windows: [ScheduleWindow] = []
        for (index, item) in items.enumerated() {
            let path = "\(entry.key)[\(index)]"
            guard case .dictionary(let dict) = item.value else {
                wrongType(item, expected: "dict", path: path)
                continue
            }
            var days: Set<Int> = []
            var daysValid = false
            if let node = dict["Days"] {
                if case .array(let dayNodes) = node.value {
                    daysValid = !dayNodes.isEmpty
                    if dayNodes.isEmpty {
                        error(
                            DevicePolicyCode.invalidSchedule, "'\(path).Days' must not be empty", node.position,
                            "\(path).Days")
                    }
                    for (dayIndex, dayNode) in dayNodes.enumerated() {
                        let dayPath = "\(path).Days[\(dayIndex)]"
                        guard case .string(let name) = dayNode.value else {
                            wrongType(dayNode, expected: "string", path: dayPath)
                            daysValid = false
                            continue
                        }
                        guard let day = ScheduleWindow.dayNames.firstIndex(of: name), !days.contains(day) else {
                            error(
                                DevicePolicyCode.invalidSchedule,
                                days.contains(ScheduleWindow.dayNames.firstIndex(of: name) ?? -1)
                                    ? "'\(name)' is listed twice"
                                    : "'\(name)' is not one of Mon Tue Wed Thu Fri Sat Sun",
                                dayNode.position, dayPath,
                                hint: Suggestion.closest(to: name, in: ScheduleWindow.dayNames).map {
                                    "did you mean '\($0)'?"
                                })
                            daysValid = false
                            continue
                        }
                        days.insert(day)
                    }
                } else {
                    wrongType(node, expected: "array", path: "\(path).Days")
                }
            } else {
                error(DevicePolicyCode.missingRequiredKey, "missing required key 'Days'", item.position, path)
            }
            let start = scheduleTime(dict, "Start", path: path, at: item.position)
            let end = scheduleTime(dict, "End", path: path, at: item.position)
            var zone: ZoneInfo? = nil
            if let node = dict["TimeZone"] {
                if case .string(let name) = node.value {
                    zone = ZoneInfo(named: name)
                    if zone == nil {
                        error(
                            DevicePolicyCode.unknownTimeZone, "unknown time zone '\(name)'", node.position,
                            "\(path).TimeZone", hint: "use an IANA name such as 'Europe/Berlin' or 'UTC'")
                    }
                } else {
                    wrongType(node, expected: "string", path: "\(path).TimeZone")
                }
            } else {
                error(DevicePolicyCode.missingRequiredKey, "missing required key 'TimeZone'", item.position, path)
            }
            if let start, let end, start == end, let node = dict["End"] {
                error(
                    DevicePolicyCode.invalidSchedule, "'\(path)' starts and ends at the same time", node.position,
                    "\(path).End")
                continue
            }
            if daysValid, let start, let end, let zone {
                windows.append(ScheduleWindow(days: days, start: start, end: end, zone: zone))
            }
        }
        return windows
    }

    private mutating func scheduleTime(
        _ dict: PlistDictionary, _ key: String, path: String, at position: SourcePosition
    ) -> Int? {
        guard let node = dict[key] else {
            error(DevicePolicyCode.missingRequiredKey, "missing required key '\(key)'", position, path)
            return nil
        }
        guard case .string(let text) = node.value else {
            wrongType(node, expected: "string", path: "\(path).\(key)")
            return nil
        }
        guard let minutes = ScheduleWindow.minutes(text, allowingEndOfDay: key == "End") else {
            error(
                DevicePolicyCode.invalidSchedule,
                "'\(path).\(key)' must be HH:MM from 00:00 to \(key == "End" ? "24:00" : "23:59"), found '\(text)'",
                node.position, "\(path).\(key)")
            return nil
        }
        return minutes
    }
}

/// The keys of one payload dict with aliases resolved: the current key wins over its alias.
struct PayloadKeys {
    let dict: PlistDictionary
    /// Keys read (so not unknown), as spelled.
    var used: Set<String> = []
    /// Keys the reader evaluates (for "did you mean" hints).
    var evaluated: Set<String> = []

    init(dict: PlistDictionary) { self.dict = dict }
}
