import MDMConf
import PropertyList
import UpdatePolicy

/// A declarative-management status report (Apple's `StatusReport`: `StatusItems`, `Errors`) read as the check-in it
/// amounts to, so the fleet, compliance and `report` treat both channels alike.
///
/// For each app of `app.managed.list` with a version, the app's configuration is judged by the device's own words:
/// `config-state` `invalid` is an error (with the device's reasons); `valid` with the server token of the app's data
/// asset that the catalog serves now (from `management.declarations.assets`) is current (the configuration's ETag is
/// recorded); any other token, or none, is stale. Each app keeps the device's own `state` and `config-state`
/// (``CheckIn/DDMAppState``), so the views can show the channel and the states. Status items mdmconf does not read
/// are ignored.
public enum DDMStatusReport {
    /// The check-in of `device` that the status report `root` amounts to, judged against `set` (the device's
    /// declaration set as the server serves it now); or why the body is not a status report (`malformed`: not a JSON
    /// object; otherwise one reason per bad field).
    public static func checkIn(
        _ root: PlistNode, device: String, set: DDMDeviceSet, catalog: Catalog
    ) -> Result<CheckIn, CheckInErrors> {
        guard case .dictionary(let report) = root.value else {
            return .failure(CheckInErrors(reasons: [], malformed: true))
        }
        var reasons: [CheckInErrors.Reason] = []
        for entry in report.entries where entry.key != "StatusItems" && entry.key != "Errors" {
            reasons.append(.init(field: entry.key, code: "unknown_field"))
        }
        guard case .dictionary(let items)? = report["StatusItems"]?.value else {
            reasons.append(
                .init(field: "StatusItems", code: report["StatusItems"] == nil ? "missing_field" : "invalid_type"))
            return .failure(CheckInErrors(reasons: reasons))
        }
        if let errors = report["Errors"] {
            if case .array = errors.value {} else { reasons.append(.init(field: "Errors", code: "invalid_type")) }
        }
        // Server tokens of the assets the device holds, by identifier.
        var assetTokens: [String: String] = [:]
        let assets = lookup(items, ["management", "declarations", "assets"])
        if case .array(let list)? = assets {
            for (index, node) in list.enumerated() {
                guard case .dictionary(let asset) = node.value,
                    case .string(let identifier)? = asset["identifier"]?.value
                else {
                    reasons.append(
                        .init(field: "StatusItems.management.declarations.assets[\(index)]", code: "invalid_item"))
                    continue
                }
                if case .string(let token)? = asset["server-token"]?.value { assetTokens[identifier] = token }
            }
        } else if assets != nil {
            reasons.append(.init(field: "StatusItems.management.declarations.assets", code: "invalid_type"))
        }
        var apps: [CheckIn.App] = []
        let list = lookup(items, ["app", "managed", "list"])
        if case .array(let entries)? = list {
            for (index, node) in entries.enumerated() {
                let field = "StatusItems.app.managed.list[\(index)]"
                guard case .dictionary(let item) = node.value, case .string(let bundleID)? = item["identifier"]?.value,
                    !bundleID.isEmpty
                else {
                    reasons.append(.init(field: field, code: "invalid_item"))
                    continue
                }
                let version = [item["short-version"], item["version"]].lazy.compactMap { node -> String? in
                    if case .string(let text)? = node?.value, AppVersion(text) != nil { return text }
                    return nil
                }.first
                // An app not installed yet has no version: nothing to judge.
                guard let version else { continue }
                // The device's own words for the app's states, kept as they are (a word of another type, or a
                // longer one than a state is, is refused).
                func word(_ key: String) -> String? {
                    switch item[key]?.value {
                    case nil: return nil
                    case .string(let text)? where text.utf8.count <= CheckIn.DDMAppState.maxLength: return text
                    default:
                        reasons.append(.init(field: "\(field).\(key)", code: "invalid_item"))
                        return nil
                    }
                }
                let configState = word("config-state")
                var app = CheckIn.App(
                    app: bundleID, version: version,
                    ddm: CheckIn.DDMAppState(state: word("state"), configState: configState))
                let current = set.declaration(
                    type: "com.apple.asset.data", identifier: DDMExporter.assetIdentifier(bundleID))?.serverToken
                let held = assetTokens[DDMExporter.assetIdentifier(bundleID)]
                if configState == "invalid" {
                    app.configError = reasonsText(item["reasons"]) ?? "the device reports the configuration invalid"
                } else if configState == "valid", let current, held == current, let served = catalog.apps[bundleID] {
                    app.configETag = served.config(forDevice: device).xml.etag
                } else if let held {
                    app.configETag = "\"ddm-token-\(held)\""
                }
                apps.append(app)
            }
        } else if list != nil {
            reasons.append(.init(field: "StatusItems.app.managed.list", code: "invalid_type"))
        }
        if !reasons.isEmpty { return .failure(CheckInErrors(reasons: reasons)) }
        if apps.count > CheckIn.maxApps {
            return .failure(
                CheckInErrors(reasons: [.init(field: "StatusItems.app.managed.list", code: "too_many_apps")]))
        }
        let platform = catalog.devices[device]?.attributes["platform"] ?? "ios"
        return .success(CheckIn(device: device, platform: platform, apps: apps))
    }

    /// The value at a path of nested dictionaries (`app` → `managed` → `list`).
    private static func lookup(_ items: PlistDictionary, _ path: [String]) -> PlistValue? {
        var current: PlistValue = .dictionary(items)
        for key in path {
            guard case .dictionary(let dict) = current, let next = dict[key]?.value else { return nil }
            current = next
        }
        return current
    }

    /// The device's reasons (`code: description`), one per line, or nil.
    private static func reasonsText(_ node: PlistNode?) -> String? {
        guard case .array(let reasons)? = node?.value else { return nil }
        let lines = reasons.compactMap { reason -> String? in
            guard case .dictionary(let dict) = reason.value else { return nil }
            let code: String? = if case .string(let text)? = dict["code"]?.value { text } else { nil }
            let description: String? = if case .string(let text)? = dict["description"]?.value { text } else { nil }
            return [code, description].compactMap { $0 }.joined(separator: ": ")
        }.filter { !$0.isEmpty }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }
}
