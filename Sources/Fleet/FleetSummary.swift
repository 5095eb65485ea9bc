import MDMDiagnostics
import UpdatePolicy

/// Fleet counts (`GET /v1/fleet/summary`, the head of `mdmconf report`): devices by compliance and by seen status,
/// and per app devices by decision, by config status and by version.
public struct FleetSummary: Sendable, Equatable {
    /// One app's counts.
    public struct AppCounts: Sendable, Equatable {
        /// Devices the app is listed for.
        public var devices = 0
        /// Of those, the active devices where the app is compliant.
        public var compliant = 0
        /// Devices by the version they report.
        public var versions: [String: Int] { versionCounts.dictionary }
        private var versionCounts = NamedCounts<Int>()
        /// By `Outcome` in `allCases` order, then unreported; by `ConfigStatus` in `allCases` order: counted by
        /// index, not by hashing a name per app and device.
        private var decisionCounts = [Int](repeating: 0, count: Self.outcomes.count + 1)
        private var configCounts = [Int](repeating: 0, count: Self.statuses.count)
        // `allCases` builds its array on every use.
        private static let outcomes = Outcome.allCases
        private static let statuses = ConfigStatus.allCases

        /// Devices by decision (`ok` … `required`, and `unreported`), only those with at least one.
        public var decisions: [String: Int] {
            Self.named(decisionCounts, Self.outcomes.map(\.rawValue) + ["unreported"])
        }

        /// Devices by config status, only those with at least one.
        public var config: [String: Int] { Self.named(configCounts, Self.statuses.map(\.rawValue)) }

        private static func named(_ counts: [Int], _ names: [String]) -> [String: Int] {
            var named: [String: Int] = [:]
            for (name, count) in zip(names, counts) where count > 0 { named[name] = count }
            return named
        }

        mutating func merge(_ other: AppCounts) {
            devices += other.devices
            compliant += other.compliant
            for (version, count) in other.versionCounts.pairs { versionCounts[version, default: 0] += count }
            for index in decisionCounts.indices { decisionCounts[index] += other.decisionCounts[index] }
            for index in configCounts.indices { configCounts[index] += other.configCounts[index] }
        }

        /// Counts one device's app: its outcome (nil: no decision), config status and version, and whether it
        /// counts as compliant (the app is, and the device is active). Fields, not the `AppCompliance`: passed
        /// whole, it was copied for every call.
        mutating func add(outcome: Outcome?, config: ConfigStatus, version: String?, compliant: Bool) {
            devices += 1
            if compliant { self.compliant += 1 }
            decisionCounts[outcome.flatMap { Self.outcomes.firstIndex(of: $0) } ?? Self.outcomes.count] += 1
            configCounts[Self.statuses.firstIndex(of: config) ?? 0] += 1
            versionCounts[version ?? "unreported", default: 0] += 1
        }

        public static func == (lhs: AppCounts, rhs: AppCounts) -> Bool {
            lhs.devices == rhs.devices && lhs.compliant == rhs.compliant && lhs.versions == rhs.versions
                && lhs.decisionCounts == rhs.decisionCounts && lhs.configCounts == rhs.configCounts
        }
    }

    /// The app the counts are narrowed to (`?app=`), or nil for every app.
    public var app: String?
    /// Devices counted.
    public var devices = 0
    /// Of those, the compliant ones.
    public var compliant = 0
    /// Devices by seen status (`active`, `silent`, `never`), only those with at least one.
    public var seen: [String: Int] {
        var named: [String: Int] = [:]
        for (status, count) in zip(SeenStatus.allCases, seenCounts) where count > 0 { named[status.rawValue] = count }
        return named
    }
    /// Counts per app, by bundle id.
    public var apps: [String: AppCounts] { appCounts.dictionary }
    /// By `SeenStatus` in `allCases` order; per app and per version, names found by comparing before hashing
    /// (`NamedCounts`): a device's counts were three hashed lookups of a name per app.
    private var seenCounts = [0, 0, 0]
    private var appCounts = NamedCounts<AppCounts>()

    /// Empty counts, narrowed to `app` when given.
    public init(app: String? = nil) { self.app = app }

    /// Devices counted that are not compliant.
    public var noncompliant: Int { devices - compliant }

    /// Adds another summary's counts to these.
    public mutating func merge(_ other: FleetSummary) {
        devices += other.devices
        compliant += other.compliant
        for index in seenCounts.indices { seenCounts[index] += other.seenCounts[index] }
        for (id, counts) in other.appCounts.pairs { appCounts[id, default: AppCounts()].merge(counts) }
    }

    public static func == (lhs: FleetSummary, rhs: FleetSummary) -> Bool {
        lhs.app == rhs.app && lhs.devices == rhs.devices && lhs.compliant == rhs.compliant
            && lhs.seenCounts == rhs.seenCounts && lhs.apps == rhs.apps
    }

    /// Counts one device.
    public mutating func add(_ row: DeviceCompliance) {
        devices += 1
        if row.compliant { compliant += 1 }
        switch row.seen {
        case .active: seenCounts[0] += 1
        case .silent: seenCounts[1] += 1
        case .never: seenCounts[2] += 1
        }
        let active = row.seen == .active
        for index in row.apps.indices {
            let outcome = row.apps[index].decision?.decision
            let config = row.apps[index].config
            let version = row.apps[index].reported?.version
            let compliant = active && row.isAppCompliant(index)
            // Counted in place: a copy taken out of `apps` would copy its dictionaries on every add.
            appCounts[row.apps[index].app, default: AppCounts()].add(
                outcome: outcome, config: config, version: version, compliant: compliant)
        }
    }

    /// The counts as `GET /v1/fleet/summary` answers them.
    public func json(generation: Int?, now: String) -> JSONValue {
        func counts(_ values: [String: Int], keys: [String]) -> JSONValue {
            let extra = values.keys.filter { !keys.contains($0) }.sorted()
            return .object((keys + extra).map { ($0, .integer(values[$0] ?? 0)) })
        }
        let decisionKeys = Outcome.allCases.map(\.rawValue) + ["unreported"]
        let configKeys = ConfigStatus.allCases.map(\.rawValue)
        let apps = self.apps
        let appList: [JSONValue] = apps.keys.sorted { $0.utf8Precedes($1) }.map { id in
            let app = apps[id] ?? AppCounts()
            let versions = app.versions.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            return .object([
                ("app", .string(id)), ("devices", .integer(app.devices)), ("compliant", .integer(app.compliant)),
                ("decisions", counts(app.decisions, keys: decisionKeys)),
                ("config", counts(app.config, keys: configKeys)),
                ("versions", .object(versions.map { ($0.key, .integer($0.value)) })),
            ])
        }
        return .object([
            ("generatedAt", .string(now)), ("catalogGeneration", generation.map { .integer($0) } ?? .null),
            ("app", .optional(app)),
            ("devices", .integer(devices)), ("compliant", .integer(compliant)),
            ("noncompliant", .integer(noncompliant)),
            ("seen", counts(seen, keys: SeenStatus.allCases.map(\.rawValue))),
            ("apps", .array(appList)),
        ])
    }
}

/// Values by name, for the few names a fleet's counts have (its apps, an app's versions): a name is first looked
/// for by comparing it with the one found last and the few after it, and hashed only when none of them is it. A
/// device's apps come in the same order device after device, and most devices run one of a few versions.
struct NamedCounts<Value: Sendable>: Sendable {
    private(set) var names: [String] = []
    private var values: [Value] = []
    private var positions: [String: Int] = [:]
    private var last = 0

    /// The names and their values, in the order the names came.
    var pairs: Zip2Sequence<[String], [Value]> { zip(names, values) }

    /// The names and their values.
    var dictionary: [String: Value] { Dictionary(uniqueKeysWithValues: pairs) }

    subscript(name: String, default fallback: @autoclosure () -> Value) -> Value {
        get { position(of: name).map { values[$0] } ?? fallback() }
        _modify {
            let index: Int
            if let found = position(of: name) {
                index = found
            } else {
                index = names.count
                names.append(name)
                values.append(fallback())
                positions[name] = index
            }
            last = index
            yield &values[index]
        }
    }

    private func position(of name: String) -> Int? {
        let count = names.count
        guard count > 0 else { return nil }
        var index = last
        let length = name.utf8.count  // a name of another length is passed over without comparing its bytes
        for _ in 0..<min(count, 4) {
            if names[index].utf8.count == length, names[index] == name { return index }
            index = index + 1 == count ? 0 : index + 1
        }
        return count > 4 ? positions[name] : nil
    }
}

/// A device's compliance in the fleet endpoints' JSON.
extension DeviceCompliance: JSONDocument {
    /// The device document of *Fleet state*, member by member: the value, and the text written straight from it (a
    /// report's rows, an event's data) without making the value first.
    public func write(to sink: inout some JSONSink) {
        sink.beginObject()
        sink.member("device", .string(device))
        sink.member("compliant", .bool(compliant))
        sink.member("seen", .string(seen.rawValue))
        sink.member("lastCheckin", .optional(state?.lastCheckIn.description))
        sink.member("platform", .optional(state?.platform))
        sink.member("osVersion", .optional(state?.osVersion))
        sink.member("deviceModel", .optional(state?.deviceModel))
        sink.member("replica", .optional(state?.replica))
        sink.member("generation", .optional(generation))
        sink.key(literal: "why")
        sink.beginArray()
        for cause in why { sink.value(.string(cause)) }
        sink.endArray()
        sink.key(literal: "apps")
        sink.beginArray()
        for app in apps { app.write(to: &sink) }
        sink.endArray()
        sink.endObject()
    }

    /// Why the device is not compliant, one short phrase per cause (`com.example.field: required
    /// (below_min_version)`, `silent`); empty when it is.
    public var why: [String] {
        var causes: [String] = []
        if seen != .active { causes.append(seen == .never ? "never checked in" : "silent") }
        for index in apps.indices where !isAppCompliant(index) {
            let app = apps[index].app
            if let outcome = apps[index].decision?.decision, outcome != .ok && outcome != .recommended {
                let codes = apps[index].decision?.reasons.map(\.code).joined(separator: ",") ?? ""
                causes.append("\(app): \(outcome.rawValue)\(codes.isEmpty ? "" : " (\(codes))")")
            }
            let config = apps[index].config
            guard config != .current else { continue }
            // An error is said with the device's own words, on one line and at most 200 characters.
            let error = apps[index].reported?.configError.map(Self.oneLine) ?? ""
            causes.append("\(app): config \(config.rawValue)\(config == .error && !error.isEmpty ? " (\(error))" : "")")
        }
        return causes
    }

    /// `text` on one line (line breaks as `; `), cut to 200 characters.
    static func oneLine(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: "; ")
        return line.count > 200 ? line.prefix(199) + "…" : line
    }
}

/// An app's compliance in the fleet endpoints' JSON.
extension AppCompliance: JSONDocument {
    /// The app's row: version, compliance, update decision and configuration status.
    public func write(to sink: inout some JSONSink) {
        sink.beginObject()
        sink.member("app", .string(app))
        sink.member("version", .optional(reported?.version))
        sink.member("build", .optional(reported?.build))
        sink.member("compliant", .bool(compliant))
        sink.member("managed", .bool(managed))
        sink.key(literal: "update")
        if let decision { decision.write(to: &sink) } else { sink.value(.null) }
        sink.key(literal: "config")
        sink.beginObject()
        sink.member("status", .string(config.rawValue))
        sink.member("reportedETag", .optional(reported?.configETag))
        sink.member("currentETag", .optional(currentETag))
        sink.member("error", .optional(reported?.configError))
        sink.member("channel", .optional(reported?.delivery.rawValue))
        sink.key(literal: "ddm")
        if let ddm = reported?.ddm {
            ddm.write(to: &sink)
        } else {
            sink.value(.null)
        }
        sink.endObject()
        sink.endObject()
    }
}

/// CSV (RFC 4180) of device rows: one line per (device, app), with the reasons.
public enum FleetCSV {
    /// The header line.
    public static let header =
        "device,compliant,seen,last_checkin,platform,os_version,app,version,decision,reasons,deadline,config_status,reported_etag,current_etag,channel\r\n"

    /// The lines of one device: one per app (one with empty app fields for a device without apps).
    public static func lines(_ row: DeviceCompliance) -> String {
        var out = ""
        let apps: [AppCompliance?] = row.apps.isEmpty ? [nil] : row.apps
        for app in apps {
            let fields: [String] = [
                row.device, row.compliant ? "true" : "false", row.seen.rawValue,
                row.state?.lastCheckIn.description ?? "", row.state?.platform ?? "", row.state?.osVersion ?? "",
                app?.app ?? "", app?.reported?.version ?? "", app?.decision?.decision.rawValue ?? "",
                app?.decision?.reasons.map(\.code).joined(separator: " ") ?? "",
                app?.decision?.deadline?.description ?? "", app?.config.rawValue ?? "",
                app?.reported?.configETag ?? "", app?.currentETag ?? "", app?.reported?.delivery.rawValue ?? "",
            ]
            out += fields.map(quote).joined(separator: ",") + "\r\n"
        }
        return out
    }

    /// A field quoted when it holds a comma, quote, line break, or starts like a spreadsheet formula.
    public static func quote(_ field: String) -> String {
        var field = field
        if let first = field.utf8.first,
            first == UInt8(ascii: "=") || first == UInt8(ascii: "+")
                || first == UInt8(ascii: "-") || first == UInt8(ascii: "@")
        {
            field = "'" + field
        }
        let special: (UInt8) -> Bool = {
            $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r")
        }
        guard field.utf8.contains(where: special) else { return field }
        var quoted: [UInt8] = [UInt8(ascii: "\"")]
        quoted.reserveCapacity(field.utf8.count + 8)
        for byte in field.utf8 {
            quoted.append(byte)
            if byte == UInt8(ascii: "\"") { quoted.append(byte) }
        }
        quoted.append(UInt8(ascii: "\""))
        return String(decoding: quoted, as: UTF8.self)
    }
}
