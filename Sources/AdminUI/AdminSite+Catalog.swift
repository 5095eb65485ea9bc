import CivilTime
import ConfigSchema
import Fleet
import Foundation
import MDMConf
import MDMDiagnostics
import PropertyList
import UpdatePolicy

/// The fleet counts the overview and the fleet page show, as counted at `countedAt` (the server keeps them for a
/// short while: counting 100,000 devices takes about a second), or why there are none.
public struct FleetCounts: Sendable {
    /// The counts, or nil when they could not be made.
    public var summary: FleetSummary?
    /// When they were counted.
    public var countedAt: Instant
    /// Why there are no counts (the store cannot be read), shown instead.
    public var problem: String?
    /// Said next to the counts (an older catalog generation's count, say).
    public var note: String?

    /// Counts made at `countedAt`, or the `problem` that kept them from being made.
    public init(summary: FleetSummary?, countedAt: Instant, problem: String? = nil) {
        self.summary = summary
        self.countedAt = countedAt
        self.problem = problem
    }

    struct View {
        var available: Bool
        var devices = 0
        var compliant = 0
        var noncompliant = 0
        var silent = 0
        var never = 0
        var countedAt = ""
        var svg = ""
        var problem: String?
        var note: String?
    }

    var view: View {
        guard let summary else { return View(available: false, problem: problem ?? "the fleet store cannot be read") }
        let silent = summary.seen["silent"] ?? 0
        let never = summary.seen["never"] ?? 0
        let chart = BarChart(
            title: "Devices by compliance",
            bars: [
                .init(label: "compliant", value: summary.compliant, style: "compliant"),
                .init(
                    label: "non-compliant (active)", value: summary.noncompliant - silent - never, style: "noncompliant"
                ),
                .init(label: "silent", value: silent, style: "silent"),
                .init(label: "never seen", value: never, style: "never"),
            ])
        return View(
            available: true, devices: summary.devices, compliant: summary.compliant, noncompliant: summary.noncompliant,
            silent: silent, never: never, countedAt: countedAt.description, svg: chart.svg, note: note)
    }
}

extension AdminSite {
    // MARK: Overview

    /// The overview page: the catalog's apps with their findings and, with a fleet store, the fleet's counts.
    public func overview(_ snapshot: CatalogSnapshot, fleet: FleetCounts?, chrome: AdminChrome) -> String {
        struct App {
            var id: String, schema: String, variants: String, policy: String, badge: String, badgeClass: String
        }
        struct Facts {
            var generation: Int, loadedAt: String, source: String, appCount: Int, deviceCount: Int, profileCount: Int
        }
        struct ReloadError {
            var at: String
            var count: Int
            var findings: FindingsView
        }
        struct Warnings { var findings: FindingsView }
        struct Page {
            var catalog: Facts, reloadError: ReloadError?, apps: [App], warnings: Warnings?, fleet: FleetCounts.View?
        }
        let catalog = snapshot.catalog
        let apps = catalog.appIDs.compactMap { id -> App? in
            guard let app = catalog.apps[id] else { return nil }
            let findings = Self.warnings(of: id, in: catalog)
            let warnings = findings.count(of: .warning)
            return App(
                id: id, schema: "\(app.schema.format.rawValue) · \(app.schema.keys.count) keys",
                variants: app.variants.isEmpty ? "none" : app.variants.joined(separator: ", "),
                policy: app.hasUpdatePolicy
                    ? "\(app.updatePolicy.document.policies.count) policies" : "none (every version ok)",
                badge: warnings == 0 ? "valid" : "valid, \(warnings) warning\(warnings == 1 ? "" : "s")",
                badgeClass: warnings == 0 ? "valid" : "warning")
        }
        let reload = snapshot.reloadError.map { failure in
            ReloadError(
                at: failure.at.description, count: failure.diagnostics.count,
                findings: FindingsView(
                    failure.diagnostics, sources: FindingsView.sources(of: failure.diagnostics, under: catalog.path),
                    open: true))
        }
        let page = Page(
            catalog: Facts(
                generation: snapshot.generation, loadedAt: snapshot.loadedAt.description, source: snapshot.source,
                appCount: catalog.apps.count, deviceCount: catalog.devices.count,
                profileCount: catalog.policyEngine.profileSet.documents.count),
            reloadError: reload, apps: apps,
            warnings: catalog.warnings.isEmpty
                ? nil
                : Warnings(
                    findings: FindingsView(
                        catalog.warnings, sources: FindingsView.sources(of: catalog.warnings, under: catalog.path))),
            fleet: fleet?.view)
        return render("overview", page, chrome: chrome, title: "Overview", nav: "overview")
    }

    /// The catalog's warnings about files of app `id`.
    static func warnings(of id: String, in catalog: Catalog) -> [Diagnostic] {
        catalog.warnings.filter { $0.file?.contains("/apps/\(id)/") ?? false }
    }

    // MARK: App

    /// The app page, or nil when the catalog has no such app. `device` picks the "as served" device.
    public func app(_ id: String, device: String?, _ snapshot: CatalogSnapshot, chrome: AdminChrome) -> String? {
        let catalog = snapshot.catalog
        guard let app = catalog.apps[id] else { return nil }
        struct Row { var cells: [String] }
        struct Config {
            var name: String, what: String, badge: String, badgeClass: String, findings: FindingsView, xml: String?
        }
        struct DeviceOption {
            var id: String
            var group: String?
            var selected: Bool
        }
        struct Served {
            var device: String, platform: String, variant: String, etag: String, jsonETag: String, xml: String
            var redactedCount: Int
        }
        struct Page {
            var id: String, title: String, schemaPath: String, schemaFormat: String, keyCount: Int
            var schemaHeader: [String], schemaRows: [Row], configs: [Config], devices: [DeviceOption], served: Served?
            var problem: String?, policyText: String?
        }
        let warnings = Self.warnings(of: id, in: catalog)
        let sources = FindingsView.sources(of: warnings, under: catalog.path)
        let folder = catalog.path + "/apps/" + id
        var configs: [Config] = []
        // The plist configurations for Apple devices, then the JSON ones for Android.
        var files: [(name: String, group: String?, schema: ConfigSchema)] = []
        if app.servesApple {
            files += [("config.plist", nil, app.schema)] + app.variants.map { ("configs/\($0).plist", $0, app.schema) }
        }
        if let android = app.android {
            files +=
                [("config.json", nil, android.schema)]
                + android.variants.map { ("configs/\($0).json", $0, android.schema) }
        }
        for file in files {
            let path = folder + "/" + file.name
            let findings = warnings.filter { $0.file == path }
            let count = findings.count(of: .warning)
            let platform = file.name.hasSuffix(".json") ? " on Android" : ""
            configs.append(
                Config(
                    name: file.name,
                    what: file.group.map { "The variant of group \($0)\(platform)." }
                        ?? "Served to devices\(platform) without a group variant, variables substituted per device.",
                    badge: count == 0 ? "valid" : "valid, \(count) warning\(count == 1 ? "" : "s")",
                    badgeClass: count == 0 ? "valid" : "warning", findings: FindingsView(findings, sources: sources),
                    xml: Self.redactedFile(path, schema: file.schema)))
        }
        let inventory = catalog.deviceIDs
        let chosen = device ?? inventory.first
        var served: Served?
        var problem: String?
        if let chosen {
            if let inventoryDevice = catalog.devices[chosen] {
                let platform = inventoryDevice.platform
                let config = app.config(forDevice: chosen, platform: platform)
                let android = platform == .android && app.android != nil
                let (text, count) = Self.redacted(
                    android ? config.json.bytes : config.xml.bytes, schema: app.schema(for: platform), json: android)
                served = Served(
                    device: chosen, platform: android ? "Android (JSON)" : "Apple (plist)",
                    variant: config.variant ?? (android ? "config.json" : "config.plist"), etag: config.xml.etag,
                    jsonETag: config.json.etag, xml: text, redactedCount: count)
            } else {
                problem = "no device '\(chosen)' in devices.plist"
            }
        }
        let policyText = app.hasUpdatePolicy ? Self.policySummary(app.updatePolicy.document) : nil
        let page = Page(
            id: id, title: app.schema.title ?? "", schemaPath: app.schema.path,
            schemaFormat: app.schema.format.rawValue,
            keyCount: app.schema.keys.count, schemaHeader: SchemaTable.header,
            schemaRows: SchemaTable(app.schema).rows.map { Row(cells: $0) }, configs: configs,
            devices: inventory.map { name in
                DeviceOption(
                    id: name,
                    group: app.config(forDevice: name, platform: catalog.devices[name]?.platform ?? .apple).variant,
                    selected: name == chosen)
            }, served: served, problem: problem, policyText: policyText)
        return render("app", page, chrome: chrome, title: id, nav: "")
    }

    /// A configuration file of the catalog folder, read again and shown with sensitive values redacted; nil when the
    /// catalog is a stored generation (no folder) or the file cannot be read.
    static func redactedFile(_ path: String, schema: ConfigSchema) -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 16 << 20 else { return nil }
        return redacted(Array(data), schema: schema, json: path.hasSuffix(".json")).xml
    }

    /// Plist bytes (or JSON, for Android) as XML (or JSON) with sensitive values replaced, and how many were.
    static func redacted(_ bytes: [UInt8], schema: ConfigSchema, json: Bool = false) -> (xml: String, count: Int) {
        let document = PropertyListReader().read(bytes, file: json ? "config.json" : "config.plist")
        guard let root = document.root else { return ("(not a readable plist)", 0) }
        let redacted = Redaction.redact(root.value, schema: schema)
        if json {
            let text = PlistWriter.json(redacted)
            let count = text.components(separatedBy: "\"\(Redaction.placeholder)\"").count - 1
            return (text, count)
        }
        let text = (try? PlistWriter.xml(redacted)) ?? "(cannot be written as XML)"
        let count = text.components(separatedBy: "<string>\(BarChart.escape(Redaction.placeholder))</string>").count - 1
        return (text, count)
    }

    /// One line per policy of an update-policy document.
    static func policySummary(_ document: PolicyDocument) -> String {
        document.policies.map { policy in
            var parts = ["\(policy.id):"]
            if let platforms = policy.platforms { parts.append("on \(platforms.joined(separator: ", "))") }
            if let channels = policy.channels { parts.append("channels \(channels.joined(separator: ", "))") }
            if let minimum = policy.minVersion { parts.append("minimum \(minimum)") }
            if let recommended = policy.recommendedVersion { parts.append("recommended \(recommended)") }
            if let blocked = policy.blockedVersions, !blocked.isEmpty { parts.append("blocks \(blocked.count) ranges") }
            if let deadline = policy.deadline { parts.append("deadline \(deadline)") }
            if let os = policy.requiresOS { parts.append("requires OS \(os)") }
            if let rollout = policy.rollout { parts.append("rollout \(rollout.percent)") }
            return parts.joined(separator: " ")
        }.joined(separator: "\n")
    }

    // MARK: Validate

    /// An upload or pasted text to validate: its bytes and the name it is reported under.
    public struct Upload: Sendable {
        /// The name findings are reported under.
        public var file: String
        /// The plist as uploaded or pasted.
        public var bytes: [UInt8]

        /// An upload named `file`.
        public init(file: String, bytes: [UInt8]) {
            self.file = file
            self.bytes = bytes
        }
    }

    /// The validate page: the form, and with an upload, its findings from the same validator as `mdmconf validate`.
    public func validate(
        app id: String?, upload: Upload?, text: String, problem: String?, _ snapshot: CatalogSnapshot,
        readerOptions: PlistReaderOptions, chrome: AdminChrome
    ) -> String {
        struct Option {
            var id: String
            var selected: Bool
        }
        struct Result {
            var headline: String, badge: String, badgeClass: String, file: String, schema: String
            var findings: FindingsView
        }
        struct Page {
            var apps: [Option], text: String, result: Result?, problem: String?
        }
        let catalog = snapshot.catalog
        var result: Result?
        var problem = problem
        if let upload {
            if let id, let app = catalog.apps[id] {
                let checked = ConfigValidation.check(
                    upload.bytes, file: upload.file, against: app.schema, readerOptions: readerOptions)
                let diagnostics = checked.report.diagnostics
                let errors = diagnostics.count(of: .error)
                let sources = checked.source.map { [upload.file: $0] } ?? [:]
                result = Result(
                    headline: errors == 0 ? "Valid" : "Not valid: \(errors) error\(errors == 1 ? "" : "s")",
                    badge: errors == 0 ? "valid" : "invalid", badgeClass: errors == 0 ? "valid" : "invalid",
                    file: upload.file, schema: app.schema.path,
                    findings: FindingsView(diagnostics, sources: sources, open: true))
            } else {
                problem = "choose an app of the catalog"
            }
        }
        let page = Page(
            apps: catalog.appIDs.map { Option(id: $0, selected: $0 == id) }, text: text, result: result,
            problem: problem)
        return render("validate", page, chrome: chrome, title: "Validate", nav: "validate")
    }
}
