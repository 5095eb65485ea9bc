import Foundation
import MDMDiagnostics
import PropertyList
import WebhookEvents

/// `events.plist`: the endpoints events are sent to. Its root is a dict of endpoint names to dicts of `url`,
/// `types` (event type names) and one of `secretFile` (an absolute path) or `secretEnvironment` (a variable name):
/// the catalog is stored in the fleet store as it is, so a secret is never written in it.
extension CatalogRun {
    static let eventsFile = "events.plist"

    mutating func loadEvents() -> [EventEndpoint] {
        let file = join(root, Self.eventsFile)
        guard InputPaths.isFile(file) else { return [] }
        return readEvents(file)
    }

    /// The endpoints of the events file `file`, every problem recorded.
    mutating func readEvents(_ file: String) -> [EventEndpoint] {
        guard let dict = readDictionary(file, code: CatalogCode.invalidEvents) else { return [] }
        var endpoints: [EventEndpoint] = []
        let named = namedDictionaries(
            dict, file: file, code: CatalogCode.invalidEvents, name: "endpoint name", item: "endpoint",
            holding: "url, types and its secret")
        for (entry, fields) in named {
            if let endpoint = readEndpoint(entry.key, fields, file: file, at: entry.value.position) {
                endpoints.append(endpoint)
            }
        }
        return endpoints.sorted { $0.name < $1.name }
    }

    private mutating func readEndpoint(
        _ name: String, _ fields: PlistDictionary, file: String, at position: SourcePosition
    ) -> EventEndpoint? {
        var url: String?
        var types: Set<EventType> = []
        var secrets: [EventEndpoint.SecretSource] = []
        var valid = true
        func bad(_ message: String, _ field: PlistDictionary.Entry, hint: String? = nil) {
            report(
                CatalogCode.invalidEvents, message, file: file, at: field.value.position,
                keyPath: name + "." + field.key, hint: hint)
            valid = false
        }
        for field in fields.entries {
            switch (field.key, field.value.value) {
            case ("url", .string(let text)):
                switch Self.eventURLProblem(text) {
                case nil: url = text
                case let problem?: bad("url of endpoint '\(name)' \(problem)", field)
                }
            case ("types", .array(let items)) where !items.isEmpty:
                for (index, item) in items.enumerated() {
                    guard case .string(let text) = item.value, let type = EventType(rawValue: text),
                        type != .test
                    else {
                        report(
                            CatalogCode.invalidEvents, "types[\(index)] of endpoint '\(name)' is not an event type",
                            file: file, at: item.position, keyPath: name + ".types[\(index)]",
                            hint: "the types are " + EventType.subscribable.map(\.rawValue).joined(separator: ", "))
                        valid = false
                        continue
                    }
                    types.insert(type)
                }
            case ("secretFile", .string(let path)) where path.hasPrefix("/"):
                secrets.append(.file(path))
            case ("secretFile", _):
                bad(
                    "secretFile of endpoint '\(name)' must be an absolute path", field,
                    hint: "keep the secret outside the catalog folder: the catalog is stored and published as it is")
            case ("secretEnvironment", .string(let variable)) where Self.isEnvironmentName(variable):
                secrets.append(.environment(variable))
            case ("secretEnvironment", _):
                bad("secretEnvironment of endpoint '\(name)' must be an environment variable's name", field)
            case ("secret", _):
                bad(
                    "the secret of endpoint '\(name)' is written in the catalog in clear", field,
                    hint: "name where it is kept instead: secretFile (an absolute path) or secretEnvironment")
            case ("url", _), ("types", _):
                bad(
                    "\(field.key) of endpoint '\(name)' must be \(field.key == "url" ? "a string" : "a non-empty array of event types")",
                    field)
            default:
                report(
                    CatalogCode.invalidEvents, "unknown key '\(field.key)' in endpoint '\(name)'", file: file,
                    at: field.keyPosition, keyPath: name + "." + field.key,
                    hint: "an endpoint has url, types, and secretFile or secretEnvironment")
                valid = false
            }
        }
        if url == nil || types.isEmpty || secrets.count != 1 {
            let missing = [url == nil ? "url" : nil, types.isEmpty ? "types" : nil].compactMap { $0 }
            if valid {
                let message =
                    secrets.count > 1
                    ? "endpoint '\(name)' has both secretFile and secretEnvironment; give one"
                    : missing.isEmpty
                        ? "endpoint '\(name)' has no secretFile or secretEnvironment"
                        : "endpoint '\(name)' has no \(missing.joined(separator: " or "))"
                report(CatalogCode.invalidEvents, message, file: file, at: position, keyPath: name)
            }
            return nil
        }
        guard valid, let url, let secret = secrets.first else { return nil }
        return EventEndpoint(name: name, url: url, types: types, secret: secret)
    }

    /// Why `text` cannot be an endpoint's URL, or nil: it must be absolute `http` or `https` with a host, and no
    /// user or password in it.
    static func eventURLProblem(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            return "is not an absolute URL"
        }
        guard scheme == "https" || scheme == "http" else { return "must be http or https (it is \(scheme))" }
        guard let host = url.host, !host.isEmpty else { return "has no host" }
        guard url.user == nil, url.password == nil else { return "must not carry a user or password" }
        return nil
    }

    static func isEnvironmentName(_ text: String) -> Bool {
        guard let first = text.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return text.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }
}

extension CatalogLoader {
    /// The endpoints of a stand-alone events file (`serve --events FILE`), read as a catalog's `events.plist` is,
    /// or every finding.
    public func loadEvents(_ path: String) -> Result<[EventEndpoint], Failure> {
        var run = CatalogRun(root: "/", readerOptions: readerOptions)
        guard InputPaths.isFile(path) else {
            run.report(CatalogCode.unreadableFile, "the events file \(path) does not exist", file: path)
            return .failure(Failure(diagnostics: run.findings, sources: run.sources))
        }
        let endpoints = run.readEvents(path)
        if run.findings.hasErrors { return .failure(Failure(diagnostics: run.findings, sources: run.sources)) }
        return .success(endpoints)
    }
}
