import CivilTime
import DevicePolicy
import MDMConf
import PropertyList
import UpdatePolicy

/// One device's report at app launch (*Fleet state*): what it runs, validated with the grammars of
/// *Update policies*. Fields keep the text the device sent (trimmed), so what is stored is what was checked.
public struct CheckIn: Sendable, Equatable {
    /// One app the device reports.
    public struct App: Sendable, Equatable {
        /// The app's bundle id.
        public var app: String
        /// The installed version, as sent.
        public var version: String
        /// The installed build, when sent.
        public var build: String?
        /// The release channel, when sent.
        public var channel: String?
        /// The ETag of the configuration the device says it applied, quotes included.
        public var configETag: String?
        /// The error the app met applying its managed configuration, as it reported it.
        public var configError: String?
        /// How many times the user has put an update off, when sent.
        public var deferralsUsed: Int64?

        /// An app as the device reports it.
        public init(
            app: String, version: String, build: String? = nil, channel: String? = nil, configETag: String? = nil,
            configError: String? = nil, deferralsUsed: Int64? = nil
        ) {
            self.app = app
            self.version = version
            self.build = build
            self.channel = channel
            self.configETag = configETag
            self.configError = configError
            self.deferralsUsed = deferralsUsed
        }
    }

    /// The device id (an admin token names it; a device token's own id otherwise).
    public var device: String
    /// The device's own clock when it checked in (informational; decisions use the server's time).
    public var at: Instant?
    /// The platform, as sent (`ios`, `android`…).
    public var platform: String
    /// The OS version, when sent.
    public var osVersion: String?
    /// The device model (`iPhone15,2`), when sent.
    public var deviceModel: String?
    /// The device's locale, when sent.
    public var locale: String?
    /// The device's time zone, when sent.
    public var timeZone: String?
    /// When the device was enrolled, when sent.
    public var enrolledAt: Instant?
    /// The apps it reports.
    public var apps: [App]

    /// A check-in with these fields.
    public init(
        device: String, at: Instant? = nil, platform: String, osVersion: String? = nil, deviceModel: String? = nil,
        locale: String? = nil, timeZone: String? = nil, enrolledAt: Instant? = nil, apps: [App]
    ) {
        self.device = device
        self.at = at
        self.platform = platform
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.locale = locale
        self.timeZone = timeZone
        self.enrolledAt = enrolledAt
        self.apps = apps
    }

    /// At most this many apps in one check-in.
    public static let maxApps = 100
    /// The members a check-in may have.
    public static let topLevelKeys = [
        "device", "at", "platform", "osVersion", "deviceModel", "locale", "timeZone", "enrolledAt", "apps",
    ]
    /// The members an app of a check-in may have.
    public static let appKeys = ["app", "version", "build", "channel", "configETag", "configError", "deferralsUsed"]

    /// The update request this check-in makes for `app`: the fields go through `UpdateRequest.parse`, the same
    /// grammar as `/v1/update-check`, with the device id as the rollout id. With a `cache`, time zones are read
    /// once per name and a parse is reused for every device that reports the same texts (a fleet reports a few
    /// versions, OS versions and models thousands of times).
    public func updateRequest(for app: App, cache: ParseCache? = nil) -> Result<UpdateRequest, RequestErrors> {
        func values() -> [String: String] {
            var values: [String: String] = ["app": app.app, "version": app.version, "platform": platform]
            values["build"] = app.build
            values["channel"] = app.channel
            values["osVersion"] = osVersion
            values["deviceModel"] = deviceModel
            values["locale"] = locale
            return values
        }
        guard let cache else {
            var values = values()
            values["deviceId"] = device
            values["timeZone"] = timeZone
            values["deferralsUsed"] = app.deferralsUsed.map { String($0) }
            values["enrolledAt"] = enrolledAt?.description
            return UpdateRequest.parse(values)
        }
        var parsed = cache.request(ParseCache.RequestKey(app, of: self), values)
        if case .success(var request) = parsed {
            // The fields that differ from device to device, already checked when the check-in was taken.
            if !device.isEmpty { request.deviceID = device }
            request.timeZone = timeZone.flatMap { cache.zone(named: $0) }
            request.deferralsUsed = app.deferralsUsed ?? 0
            request.enrolledAt = enrolledAt
            parsed = .success(request)
        }
        return parsed
    }
}

/// Why a check-in is refused: one reason per bad field, each naming the field by its path (`apps[1].version`).
public struct CheckInErrors: Error, Sendable, Equatable {
    /// One bad field.
    public struct Reason: Sendable, Equatable {
        /// The field's path (`apps[1].version`).
        public var field: String
        /// Why (`invalid_version`, `unknown_field`…).
        public var code: String

        /// A reason for `field`.
        public init(field: String, code: String) {
            self.field = field
            self.code = code
        }
    }

    /// One reason per bad field.
    public var reasons: [Reason]
    /// True when the body is not a check-in at all (not a JSON object): 400 rather than 422.
    public var malformed: Bool

    /// Errors with these reasons.
    public init(reasons: [Reason], malformed: Bool = false) {
        self.reasons = reasons
        self.malformed = malformed
    }

    /// The reasons on one line (`apps[1].version: invalid_version`).
    public var message: String {
        reasons.map { "\($0.field): \($0.code)" }.joined(separator: ", ")
    }
}

/// What compliance over a whole fleet, and a server taking check-ins, read again and again, read once: time zones by
/// name, and parsed update requests by their texts. Safe to share between threads (one lock around each look-up);
/// at most 100,000 parses are kept, so texts a hostile client makes up cannot grow it without bound.
public final class ParseCache: Sendable {
    private let zones = Locked<[String: ZoneInfo?]>([:])
    /// The texts a parse depends on.
    struct RequestKey: Hashable {
        var app: String
        var version: String
        var platform: String
        var build: String?
        var channel: String?
        var osVersion: String?
        var deviceModel: String?
        var locale: String?

        init(_ app: CheckIn.App, of checkIn: CheckIn) {
            self.app = app.app
            version = app.version
            platform = checkIn.platform
            build = app.build
            channel = app.channel
            osVersion = checkIn.osVersion
            deviceModel = checkIn.deviceModel
            locale = checkIn.locale
        }
    }

    private let requests = Locked<[RequestKey: Result<UpdateRequest, RequestErrors>]>([:])

    /// An empty cache.
    public init() {}

    /// The zone of that name, or nil when there is none.
    public func zone(named name: String) -> ZoneInfo? {
        if let cached = zones.withLock({ $0[name] }) { return cached }
        let zone = ZoneInfo(named: name)
        zones.withLock { if $0.count < 4_096 { $0[name] = zone } }
        return zone
    }

    /// `UpdateRequest.parse(values())`, parsed once per `key` (the texts the values are made of).
    func request(_ key: RequestKey, _ values: () -> [String: String]) -> Result<UpdateRequest, RequestErrors> {
        if let cached = requests.withLock({ $0[key] }) { return cached }
        let parsed = UpdateRequest.parse(values())
        requests.withLock { if $0.count < 100_000 { $0[key] = parsed } }
        return parsed
    }
}

extension CheckIn {
    /// Reads a check-in body. `device` is the caller's device when a device token asked (the body may omit it or
    /// must repeat it; that rule is the server's); otherwise the body must name one.
    public static func parse(_ root: PlistNode) -> Result<CheckIn, CheckInErrors> {
        parseWithRequests(root).map(\.checkIn)
    }

    /// `parse`, and the update request of each app (in the check-in's order) as that parse read it, for the answer.
    /// The requests' rollout id is the body's `device`; whoever names the device afterwards sets it on both. A server
    /// passes one `cache` for all its check-ins: a fleet reports the same few versions and models again and again.
    public static func parseWithRequests(_ root: PlistNode, cache: ParseCache? = nil) -> Result<
        (checkIn: CheckIn, requests: [UpdateRequest]), CheckInErrors
    > {
        guard case .dictionary(let dict) = root.value else {
            return .failure(
                CheckInErrors(reasons: [.init(field: "(body)", code: "malformed_request")], malformed: true))
        }
        var reasons: [CheckInErrors.Reason] = []
        func fail(_ field: String, _ code: String) { reasons.append(.init(field: field, code: code)) }
        for key in dict.keys where !topLevelKeys.contains(key) { fail(key, "unknown_field") }

        func string(_ node: PlistNode?, _ field: String, code: String) -> String? {
            guard let node else { return nil }
            guard case .string(let text) = node.value else {
                fail(field, code)
                return nil
            }
            return String(text.trimmingASCIIWhitespace())
        }
        let device = string(dict["device"], "device", code: "invalid_device")
        if let device, !CatalogDevice.isValidID(device) { fail("device", "invalid_device") }
        var at: Instant?
        if let text = string(dict["at"], "at", code: "invalid_at") {
            at = Self.instant(text)
            if at == nil { fail("at", "invalid_at") }
        }
        var enrolledAt: Instant?
        if let text = string(dict["enrolledAt"], "enrolledAt", code: "invalid_enrolled_at") {
            enrolledAt = Self.instant(text)
            if enrolledAt == nil { fail("enrolledAt", "invalid_enrolled_at") }
        }
        let platform = string(dict["platform"], "platform", code: "invalid_platform")
        if platform == nil, dict["platform"] == nil { fail("platform", "invalid_platform") }
        let osVersion = string(dict["osVersion"], "osVersion", code: "invalid_os_version")
        let deviceModel = string(dict["deviceModel"], "deviceModel", code: "invalid_device_model")
        let locale = string(dict["locale"], "locale", code: "invalid_locale")
        let timeZone = string(dict["timeZone"], "timeZone", code: "invalid_time_zone")

        var apps: [App] = []
        switch dict["apps"]?.value {
        case nil: fail("apps", "invalid_apps")
        case .array(let items)?:
            if items.count > maxApps { fail("apps", "too_many_apps") }
            var seen = Set<String>()
            for (index, item) in items.prefix(maxApps).enumerated() {
                let path = "apps[\(index)]"
                guard case .dictionary(let entry) = item.value else {
                    fail(path, "invalid_app_entry")
                    continue
                }
                for key in entry.keys where !appKeys.contains(key) { fail("\(path).\(key)", "unknown_field") }
                let app = string(entry["app"], "\(path).app", code: "invalid_app")
                let version = string(entry["version"], "\(path).version", code: "invalid_version")
                if entry["app"] == nil { fail("\(path).app", "invalid_app") }
                if entry["version"] == nil { fail("\(path).version", "invalid_version") }
                var deferrals: Int64?
                switch entry["deferralsUsed"]?.value {
                case nil: break
                case .integer(let number)? where number >= 0: deferrals = number
                default: fail("\(path).deferralsUsed", "invalid_deferrals")
                }
                if let app, !BundleID.isWellFormed(app) { fail("\(path).app", "invalid_app") }
                if let app {
                    if seen.contains(app) { fail("\(path).app", "duplicate_app") }
                    seen.insert(app)
                }
                apps.append(
                    App(
                        app: app ?? "", version: version ?? "",
                        build: string(entry["build"], "\(path).build", code: "invalid_build"),
                        channel: string(entry["channel"], "\(path).channel", code: "invalid_channel"),
                        configETag: string(entry["configETag"], "\(path).configETag", code: "invalid_config_etag"),
                        configError: string(entry["configError"], "\(path).configError", code: "invalid_config_error"),
                        deferralsUsed: deferrals))
            }
        default: fail("apps", "invalid_apps")
        }
        if let etagIssues = apps.enumerated().first(where: { ($0.element.configETag?.utf8.count ?? 0) > 256 }) {
            fail("apps[\(etagIssues.offset)].configETag", "invalid_config_etag")
        }
        for (index, app) in apps.enumerated() where (app.configError?.utf8.count ?? 0) > 4096 {
            fail("apps[\(index)].configError", "invalid_config_error")
        }

        // Every field through the update-request grammar. The usual case, a valid check-in with apps, takes one
        // parse per app, and the answer reuses those requests; when one fails, or there is no app, probes find
        // which field is wrong: the top-level fields once (with a probe app), then each app's own fields.
        var checkIn = CheckIn(
            device: device ?? "", at: at, platform: platform ?? "ios", osVersion: osVersion, deviceModel: deviceModel,
            locale: locale, timeZone: timeZone, enrolledAt: enrolledAt, apps: apps)
        if reasons.isEmpty, platform != nil, !apps.isEmpty {
            var requests: [UpdateRequest] = []
            for app in apps {
                // Through a cache the device's own fields (zone, deferrals, enrolment) are not parsed again: a zone
                // that does not resolve goes the slow way below, which names the field.
                guard case .success(let request) = checkIn.updateRequest(for: app, cache: cache),
                    timeZone == nil || request.timeZone != nil
                else { break }
                requests.append(request)
            }
            if requests.count == apps.count { return .success((checkIn, requests)) }
        }
        let failed = Set(reasons.map(\.field))
        let probe = App(app: "probe", version: "1")
        if case .failure(let errors) = checkIn.updateRequest(for: probe) {
            for code in errors.reasons {
                guard let field = Self.field(ofReason: code), !failed.contains(field) else { continue }
                if field == "platform", platform == nil { continue }
                fail(field, code)
            }
        }
        if platform == nil { checkIn.platform = "" }
        let topFields: Set<String> = ["platform", "osVersion", "deviceModel", "locale", "timeZone", "enrolledAt"]
        for (index, app) in apps.enumerated() where !app.app.isEmpty && !app.version.isEmpty {
            var probeCheckIn = checkIn
            probeCheckIn.platform = "ios"
            probeCheckIn.osVersion = nil
            probeCheckIn.deviceModel = nil
            probeCheckIn.locale = nil
            probeCheckIn.timeZone = nil
            probeCheckIn.enrolledAt = nil
            guard case .failure(let errors) = probeCheckIn.updateRequest(for: app) else { continue }
            for code in errors.reasons {
                guard let field = Self.field(ofReason: code), !topFields.contains(field) else { continue }
                let path = "apps[\(index)].\(field)"
                if !failed.contains(path) { fail(path, code) }
            }
        }
        guard reasons.isEmpty else { return .failure(CheckInErrors(reasons: reasons, malformed: false)) }
        var requests: [UpdateRequest] = []
        for (index, app) in checkIn.apps.enumerated() {
            switch checkIn.updateRequest(for: app) {
            case .success(let request): requests.append(request)
            case .failure(let errors):
                // Fields valid one by one but not together; said against the app.
                let codes = errors.reasons.map { CheckInErrors.Reason(field: "apps[\(index)]", code: $0) }
                return .failure(CheckInErrors(reasons: codes, malformed: false))
            }
        }
        return .success((checkIn, requests))
    }

    /// The request field a reason code of `UpdateRequest.parse` names (`invalid_os_version` → `osVersion`).
    static func field(ofReason code: String) -> String? {
        switch code {
        case "invalid_deferrals": return "deferralsUsed"
        case "unknown_field": return nil
        default:
            guard code.hasPrefix("invalid_") else { return nil }
            let snake = code.dropFirst("invalid_".count)
            var field = ""
            var upper = false
            for character in snake {
                if character == "_" {
                    upper = true
                } else {
                    field += upper ? character.uppercased() : String(character)
                    upper = false
                }
            }
            return field == "deviceId" ? "device" : field
        }
    }

    /// RFC 3339 with `Z` or an offset.
    static func instant(_ text: String) -> Instant? {
        guard let value = PolicyDateTime(text), case .absolute(let instant) = value.kind else { return nil }
        return instant
    }
}
