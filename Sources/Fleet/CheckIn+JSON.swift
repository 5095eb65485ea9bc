import CivilTime
import MDMConf
import MDMDiagnostics
import UpdatePolicy

/// A check-in as JSON.
extension CheckIn {
    /// The check-in as stored in the history: every field, `null` where absent.
    public var json: JSONValue {
        .object([
            ("device", .string(device)), ("at", .optional(at?.description)), ("platform", .string(platform)),
            ("osVersion", .optional(osVersion)), ("deviceModel", .optional(deviceModel)),
            ("locale", .optional(locale)), ("timeZone", .optional(timeZone)),
            ("enrolledAt", .optional(enrolledAt?.description)),
            ("apps", .array(apps.map(\.json))),
        ])
    }
}

/// An app of a check-in as JSON.
extension CheckIn.App {
    /// The app as stored in the history: every field, `null` where absent, and the `ddm` states when a status
    /// report gave them.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("app", .string(app)), ("version", .string(version)), ("build", .optional(build)),
            ("channel", .optional(channel)), ("configETag", .optional(configETag)),
            ("configError", .optional(configError)),
            ("deferralsUsed", deferralsUsed.map { .integer($0) } ?? .null),
        ]
        if let ddm { members.append(("ddm", ddm.json)) }
        return .object(members)
    }
}

extension CheckIn.DDMAppState {
    /// `{"state", "configState"}`, `null` where the device did not say.
    public var json: JSONValue {
        .object([("state", .optional(state)), ("configState", .optional(configState))])
    }
}

/// Check-in errors as JSON.
extension CheckInErrors {
    /// `[{"field", "code"}]`, the `reasons` of a 422 answer.
    public var json: JSONValue {
        .array(reasons.map { .object([("field", .string($0.field)), ("code", .string($0.code))]) })
    }
}

/// The answer to a check-in, computed with the same lookup and evaluator that serve configs and update checks.
extension CheckInAnswer {
    /// The answer to `record`, judged against `catalog` (stored generation `generation`) at `now`. `requests` are
    /// the apps' update requests as `CheckIn.parseWithRequests` read them (in the check-in's order, rollout id = the
    /// device); without them each app's request is parsed here.
    public init(
        for record: CheckInRecord, catalog: Catalog, generation: Int, now: Instant, requests: [UpdateRequest]? = nil
    ) {
        let checkIn = record.checkIn
        let parsed = requests.flatMap { $0.count == checkIn.apps.count ? $0 : nil }
        let apps: [App] = checkIn.apps.enumerated().map { index, app in
            guard let catalogApp = catalog.apps[app.app] else {
                return App(app: app.app, config: Config(status: .none, etag: nil), update: nil)
            }
            let platform = ConfigPlatform(checkIn.platform)
            let served = catalogApp.config(forDevice: checkIn.device, platform: platform)
            // The form the device reads: the one whose ETag it reported, else JSON for Android and the plist for Apple.
            let current = app.configETag == served.json.etag || app.configETag == served.xml.etag
            let etag = current ? app.configETag! : served.etag(for: platform)
            let update: JSONValue =
                switch parsed.map({ .success($0[index]) }) ?? checkIn.updateRequest(for: app) {
                case .success(let request): catalogApp.updatePolicy.evaluate(request, now: now).json
                case .failure(let errors): Decision.invalidRequest(errors, evaluatedAt: now).json
                }
            return App(app: app.app, config: Config(status: current ? .current : .stale, etag: etag), update: update)
        }
        self.init(
            device: checkIn.device, receivedAt: record.receivedAt.description, catalogGeneration: generation,
            apps: apps)
    }
}
