import CivilTime
import MDMConf
import MDMDiagnostics
import UpdatePolicy

/// A check-in as JSON.
extension CheckIn: JSONDocument {
    /// The check-in as stored in the history: every field, `null` where absent (the history's text is written
    /// straight from it).
    public func write(to sink: inout some JSONSink) {
        sink.beginObject()
        sink.member("device", .string(device))
        sink.member("at", .optional(at?.description))
        sink.member("platform", .string(platform))
        sink.member("osVersion", .optional(osVersion))
        sink.member("deviceModel", .optional(deviceModel))
        sink.member("locale", .optional(locale))
        sink.member("timeZone", .optional(timeZone))
        sink.member("enrolledAt", .optional(enrolledAt?.description))
        sink.key(literal: "apps")
        sink.beginArray()
        for app in apps { app.write(to: &sink) }
        sink.endArray()
        sink.endObject()
    }
}

/// An app of a check-in as JSON.
extension CheckIn.App: JSONDocument {
    /// The app as stored in the history: every field, `null` where absent, and the `ddm` states when a status
    /// report gave them.
    public func write(to sink: inout some JSONSink) {
        sink.beginObject()
        sink.member("app", .string(app))
        sink.member("version", .string(version))
        sink.member("build", .optional(build))
        sink.member("channel", .optional(channel))
        sink.member("configETag", .optional(configETag))
        sink.member("configError", .optional(configError))
        sink.member("deferralsUsed", deferralsUsed.map { .integer($0) } ?? .null)
        if let ddm {
            sink.key(literal: "ddm")
            ddm.write(to: &sink)
        }
        sink.endObject()
    }
}

/// A DDM status report's states of an app as JSON.
extension CheckIn.DDMAppState: JSONDocument {
    /// `{"state", "configState"}`, `null` where the device did not say.
    public func write(to sink: inout some JSONSink) {
        sink.beginObject()
        sink.member("state", .optional(state))
        sink.member("configState", .optional(configState))
        sink.endObject()
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
    /// The answer to `record` as a value:
    /// ``CheckInAnswer/Decided/init(for:catalog:generation:now:requests:decisions:)``,
    /// each decision made into its document.
    public init(
        for record: CheckInRecord, catalog: Catalog, generation: Int, now: Instant, requests: [UpdateRequest]? = nil,
        decisions: [Decision?]? = nil
    ) {
        self =
            Decided(
                for: record, catalog: catalog, generation: generation, now: now, requests: requests,
                decisions: decisions
            ).answer
    }
}

/// The answer to a check-in, judged against a catalog.
extension CheckInAnswer.Decided {
    /// The answer to `record`, judged against `catalog` (stored generation `generation`) at `now`. `requests` are
    /// the apps' update requests as `CheckIn.parseWithRequests` read them (in the check-in's order, rollout id = the
    /// device); without them each app's request is parsed here. `decisions`, each app's update decision (in the
    /// check-in's order) as the check-in's compliance was judged from the same check-in, catalog and instant, are
    /// given instead of deciding again.
    public init(
        for record: CheckInRecord, catalog: Catalog, generation: Int, now: Instant, requests: [UpdateRequest]? = nil,
        decisions: [Decision?]? = nil
    ) {
        let checkIn = record.checkIn
        let parsed = requests.flatMap { $0.count == checkIn.apps.count ? $0 : nil }
        let decided = decisions.flatMap { $0.count == checkIn.apps.count ? $0 : nil }
        let apps: [App] = checkIn.apps.enumerated().map { index, app in
            guard let catalogApp = catalog.apps[app.app] else {
                return App(app: app.app, config: CheckInAnswer.Config(status: .none, etag: nil), decision: nil)
            }
            let platform = ConfigPlatform(checkIn.platform)
            let served = catalogApp.config(forDevice: checkIn.device, platform: platform)
            // The form the device reads: the one whose ETag it reported, else JSON for Android and the plist for Apple.
            let current = app.configETag == served.json.etag || app.configETag == served.xml.etag
            let etag = current ? app.configETag! : served.etag(for: platform)
            func decide() -> Decision {
                switch parsed.map({ .success($0[index]) }) ?? checkIn.updateRequest(for: app) {
                case .success(let request): catalogApp.updatePolicy.evaluate(request, now: now)
                case .failure(let errors): Decision.invalidRequest(errors, evaluatedAt: now)
                }
            }
            return App(
                app: app.app, config: CheckInAnswer.Config(status: current ? .current : .stale, etag: etag),
                decision: decided?[index] ?? decide())
        }
        self.init(
            device: checkIn.device, receivedAt: record.receivedAt.description, catalogGeneration: generation,
            apps: apps)
    }
}
