import CivilTime
import MDMConf
import MDMDiagnostics
import UpdatePolicy

/// Where a device's configuration stands for one app.
public enum ConfigStatus: String, Sendable, CaseIterable {
    /// The reported ETag is one of the ETags this device would be served now (plist or JSON form).
    case current
    /// The device reported another ETag, or none: it should fetch `/v1/apps/{app}/config` again.
    case stale
    /// The device reported an error applying its configuration.
    case error
    /// The catalog serves this app but the device never reported it.
    case unknown
    /// The catalog serves nothing for this app.
    case none

    static func of(reported etag: String?, error: String?, served: ServedConfig) -> ConfigStatus {
        if let error, !error.isEmpty { return .error }
        guard let etag else { return .stale }
        return etag == served.xml.etag || etag == served.json.etag ? .current : .stale
    }
}

/// `active`, `silent` (last check-in older than the catalog's `silentAfterDays`), or `never` (an inventory
/// device that has not checked in).
public enum SeenStatus: String, Sendable, CaseIterable {
    /// Checked in within `silentAfterDays`.
    case active
    /// Checked in once, but not within `silentAfterDays`.
    case silent
    /// In the inventory, and never checked in.
    case never
}

/// One app's compliance on one device.
public struct AppCompliance: Sendable {
    /// The app's bundle id.
    public var app: String
    /// nil for an app the catalog assigns but the device never reported.
    public var reported: CheckIn.App?
    /// The update decision for the reported version; nil when the app was not reported or is not served.
    public var decision: Decision?
    /// Whether the device applied the configuration it is served.
    public var config: ConfigStatus
    /// The ETag this device would be served now (plist form), nil for an app the catalog does not serve.
    public var currentETag: String?
    /// False for apps the catalog does not serve: they are listed but never make a device non-compliant.
    public var managed: Bool

    /// True when the app may continue (`ok` or `recommended`) with its current configuration applied.
    public var compliant: Bool { Self.compliant(managed: managed, outcome: decision?.decision, config: config) }

    /// Whether an app with these fields is compliant: the one rule, for `compliant` and for
    /// `DeviceCompliance.isAppCompliant(_:)`.
    @inline(__always)
    static func compliant(managed: Bool, outcome: Outcome?, config: ConfigStatus) -> Bool {
        guard managed else { return true }
        switch outcome {
        case .ok?, .recommended?: return config == .current
        default: return false
        }
    }
}

/// One device's compliance (*Fleet state*): the row of every listing and the unit of `report`.
public struct DeviceCompliance: Sendable {
    /// The device id.
    public var device: String
    /// nil for an inventory device that never checked in.
    public var state: DeviceState?
    /// Whether it checks in.
    public var seen: SeenStatus
    /// Each app, reported or assigned, sorted by bundle id.
    public var apps: [AppCompliance]
    /// The stored generation it was judged against, when the evaluator knows generations (a rollout splits the
    /// fleet between two).
    public var generation: Int?

    /// True when the device is active and every app is compliant.
    public var compliant: Bool {
        guard seen == .active else { return false }
        // Indices, not a key path: `allSatisfy(\.compliant)` copied every app (a summary asks 300,000 times).
        for index in apps.indices where !isAppCompliant(index) { return false }
        return true
    }

    /// Whether app `index` is compliant, from the three fields read where the app is stored: `apps[index].compliant`
    /// copied the whole app out of the array first (its strings and its decision's arrays retained and released).
    func isAppCompliant(_ index: Int) -> Bool {
        AppCompliance.compliant(
            managed: apps[index].managed, outcome: apps[index].decision?.decision, config: apps[index].config)
    }
}

/// Computes compliance from stored state and the catalog now being served, at one instant, through the catalog's
/// own config lookup and update evaluator (never a second implementation of either).
public struct ComplianceEvaluator: Sendable {
    /// The catalog judged against.
    public let catalog: Catalog
    /// The instant of the judgement.
    public let now: Instant
    /// Devices whose last check-in is before this are silent.
    public let silentBefore: Instant
    /// The stored generation `catalog` is, when known.
    public let generation: Int?
    /// While a rollout splits the fleet: the rolled-out generation, which judges the devices it reached.
    public let rolledOut: RolledOutJudgement?

    /// An evaluator of `catalog` (stored generation `generation`, when known) at `now`; with `rollout`, the devices
    /// it reached are judged against its catalog instead.
    public init(
        catalog: Catalog, now: Instant, generation: Int? = nil,
        rollout: (rollout: CatalogRollout, catalog: Catalog)? = nil
    ) {
        self.catalog = catalog
        self.now = now
        self.generation = generation
        silentBefore = now.adding(seconds: -Int64(catalog.settings.silentAfterDays * 86_400))
        rolledOut = rollout.map {
            RolledOutJudgement(
                rollout: $0.rollout,
                evaluator: ComplianceEvaluator(catalog: $0.catalog, now: now, generation: $0.rollout.generation))
        }
    }

    /// The evaluator of `device`: the rolled-out generation's when the rollout reached it, else this one.
    public func evaluator(for device: String) -> ComplianceEvaluator {
        guard let rolledOut else { return self }
        return rolledOut.rollout.includes(device, new: rolledOut.evaluator.catalog, base: catalog)
            ? rolledOut.evaluator : self
    }

    /// The apps the catalog assigns to a device: every app of the catalog serves every inventory device a
    /// configuration, so every app; none for a device the inventory no longer has.
    public func assignedApps(_ device: String) -> [String] {
        assignedApps(inInventory: catalog.devices[device] != nil)
    }

    func assignedApps(inInventory: Bool) -> [String] { inInventory ? catalog.appIDs : [] }

    /// A stored device's compliance. `cache` is shared across one pass over the fleet; `memo`, when given, holds
    /// this evaluator's decisions for reuse (one per thread: it is not locked). `requests`, when given, are the
    /// update requests of `state.apps`, in their order, as the check-in's parse read them (a check-in being taken):
    /// they are not looked up again in `cache`.
    public func evaluate(
        _ state: DeviceState, cache: ParseCache, memo: DecisionMemo? = nil, requests: [UpdateRequest]? = nil
    ) -> DeviceCompliance {
        if let rolledOut, case let judge = evaluator(for: state.device),
            judge.generation == rolledOut.rollout.generation
        {
            // The other generation's decisions are memoised apart.
            return judge.evaluate(state, cache: cache, memo: memo?.rolledOut, requests: requests)
        }
        let requests = requests.flatMap { $0.count == state.apps.count ? $0 : nil }
        let checkIn = state.deviceFields
        let device = served(checkIn)
        var apps: [AppCompliance] = []
        apps.reserveCapacity(max(state.apps.count, catalog.appIDs.count))
        // Through the stored apps' buffer: so the loop's calls were inlined (judging 10,000 devices took 418 → 357
        // million instructions, against `for stored in state.apps`).
        // A pass over the fleet has no requests: its loop passes none, so it carries no optional request per app.
        state.apps.withUnsafeBufferPointer { stored in
            if let requests {
                for index in stored.indices {
                    apps.append(
                        evaluate(
                            stored[index].app, of: checkIn, device, cache: cache, memo: memo,
                            request: requests[index]))
                }
            } else {
                for index in stored.indices {
                    apps.append(evaluate(stored[index].app, of: checkIn, device, cache: cache, memo: memo))
                }
            }
        }
        // A handful of apps: a linear search, not a hashed set per device.
        for app in assignedApps(inInventory: device.inInventory)
        where !state.apps.contains(where: { $0.app.app == app }) {
            apps.append(unreported(app, device: state.device))
        }
        // The store gives a device's apps in order, and assigned ones are mostly reported: sorted only when they are
        // not (the sort copied every app, whole).
        if apps.indices.dropFirst().contains(where: { !apps[$0 - 1].app.utf8Precedes(apps[$0].app) }) {
            apps.sort { $0.app.utf8Precedes($1.app) }
        }
        return DeviceCompliance(
            device: state.device, state: state, seen: state.lastCheckIn < silentBefore ? .silent : .active,
            apps: apps, generation: generation)
    }

    /// An inventory device with no check-in: every assigned app `unknown`.
    public func neverSeen(_ device: String) -> DeviceCompliance {
        let judge = evaluator(for: device)
        return DeviceCompliance(
            device: device, state: nil, seen: .never,
            apps: judge.assignedApps(device).map { judge.unreported($0, device: device) }, generation: judge.generation)
    }

    /// What a device is served, the same for each of its apps: found once per device, not once per app.
    struct Served {
        /// The platform family its check-ins name.
        var platform: ConfigPlatform
        /// Whether the inventory has it.
        var inInventory: Bool

        /// `app`'s configuration for the device `device`. Only inventory devices have configurations of their own,
        /// so another device's id is not looked up (hashed) app after app.
        func config(of app: CatalogApp, device: String) -> ServedConfig {
            app.config(forDevice: inInventory ? device : nil, platform: platform)
        }
    }

    /// What the device that sent `checkIn` is served.
    func served(_ checkIn: CheckIn) -> Served {
        Served(platform: ConfigPlatform(checkIn.platform), inInventory: catalog.devices[checkIn.device] != nil)
    }

    func evaluate(
        _ app: CheckIn.App, of checkIn: CheckIn, _ device: Served, cache: ParseCache, memo: DecisionMemo?,
        request: UpdateRequest? = nil
    ) -> AppCompliance {
        guard let catalogApp = catalog.apps[app.app] else {
            return AppCompliance(
                app: app.app, reported: app, decision: nil, config: .none, currentETag: nil, managed: false)
        }
        let served = device.config(of: catalogApp, device: checkIn.device)
        return AppCompliance(
            app: app.app, reported: app,
            decision: decision(app, of: checkIn, catalogApp: catalogApp, cache: cache, memo: memo, request: request),
            config: ConfigStatus.of(reported: app.configETag, error: app.configError, served: served),
            currentETag: served.etag(for: device.platform), managed: true)
    }

    /// The update decision for a reported app the catalog serves: from `request` when the check-in's parse read
    /// it, else from the app's fields; through `memo` when given.
    @inline(__always)
    func decision(
        _ app: CheckIn.App, of checkIn: CheckIn, catalogApp: CatalogApp, cache: ParseCache, memo: DecisionMemo?,
        request: UpdateRequest?
    ) -> Decision {
        func decide() -> Decision {
            switch request.map({ .success($0) }) ?? checkIn.updateRequest(for: app, cache: cache) {
            case .success(let request): catalogApp.updatePolicy.evaluate(request, now: now)
            case .failure(let errors): Decision.invalidRequest(errors, evaluatedAt: now)
            }
        }
        if let memo, let rollout = catalogApp.updatePolicy.rolloutMembership(app: app.app, deviceID: checkIn.device) {
            let key = DecisionMemo.Key(
                app, of: checkIn, rollout: rollout, enrollment: catalogApp.updatePolicy.readsEnrollment)
            return memo.decision(key, decide)
        }
        return decide()
    }

    /// What ``evaluate(_:cache:memo:requests:)`` says of the device that has just sent `checkIn`, stored as it is
    /// with its last check-in now, without making the device's document: whether it is compliant, and each reported
    /// app's update decision in the check-in's order (nil for an app the catalog does not serve). The same rule, app
    /// by app (`AppCompliance.compliant`). A check-in whose compliance change is sent later needs no more than this
    /// when it is taken; building the document (the device's state, every app's compliance) had been about a sixth
    /// of judging it. `requests` are the apps' update requests as the check-in's parse read them.
    public func checkInCompliance(
        _ checkIn: CheckIn, cache: ParseCache, requests: [UpdateRequest]? = nil
    ) -> (compliant: Bool, decisions: [Decision?]) {
        if let rolledOut, case let judge = evaluator(for: checkIn.device),
            judge.generation == rolledOut.rollout.generation
        {
            return judge.checkInCompliance(checkIn, cache: cache, requests: requests)
        }
        let requests = requests.flatMap { $0.count == checkIn.apps.count ? $0 : nil }
        let device = served(checkIn)
        // Seen now: active unless the silence threshold is in the future.
        var compliant = !(now < silentBefore)
        var decisions: [Decision?] = []
        decisions.reserveCapacity(checkIn.apps.count)
        for index in checkIn.apps.indices {
            let app = checkIn.apps[index]
            guard let catalogApp = catalog.apps[app.app] else {
                decisions.append(nil)
                continue
            }
            let decision = decision(
                app, of: checkIn, catalogApp: catalogApp, cache: cache, memo: nil, request: requests?[index])
            decisions.append(decision)
            if compliant {
                let served = device.config(of: catalogApp, device: checkIn.device)
                compliant = AppCompliance.compliant(
                    managed: true, outcome: decision.decision,
                    config: ConfigStatus.of(reported: app.configETag, error: app.configError, served: served))
            }
        }
        // An assigned app the device did not report is `unknown`, never compliant.
        if compliant,
            assignedApps(inInventory: device.inInventory).contains(where: { id in
                !checkIn.apps.contains { $0.app == id }
            })
        {
            compliant = false
        }
        return (compliant, decisions)
    }

    func unreported(_ app: String, device: String) -> AppCompliance {
        let platform = catalog.devices[device]?.platform ?? .apple
        return AppCompliance(
            app: app, reported: nil, decision: nil, config: .unknown,
            currentETag: catalog.apps[app]?.config(forDevice: device, platform: platform).etag(for: platform),
            managed: true)
    }
}

/// The generation a rollout is rolling out, judging the devices it reached.
public final class RolledOutJudgement: Sendable {
    /// The rollout.
    public let rollout: CatalogRollout
    /// Its generation's evaluator.
    public let evaluator: ComplianceEvaluator

    init(rollout: CatalogRollout, evaluator: ComplianceEvaluator) {
        self.rollout = rollout
        self.evaluator = evaluator
    }
}

/// Decisions of one compliance pass (one catalog, one instant) by everything they depend on: the texts of the
/// request, the device's zone, deferrals and enrolment, and which rollouts its id falls in. A fleet reports a few
/// versions, OS versions and models thousands of times, so most devices' decisions are looked up, not evaluated.
/// Not locked: one memo per thread of a pass, and never shared between evaluators.
public final class DecisionMemo: @unchecked Sendable {
    struct Key: Hashable {
        /// The texts the request is parsed from.
        var request: ParseCache.RequestKey
        var timeZone: String?
        var deferralsUsed: Int64?
        var enrolledAt: Instant?
        var rollout: UInt64

        /// The key of `app`'s decision on `checkIn`'s device; its enrolment only when the policy reads it
        /// (`enrollment`): every device has its own, and a key with it would match no other device's.
        init(_ app: CheckIn.App, of checkIn: CheckIn, rollout: UInt64, enrollment: Bool) {
            request = ParseCache.RequestKey(app, of: checkIn)
            timeZone = checkIn.timeZone
            deferralsUsed = app.deferralsUsed
            enrolledAt = enrollment ? checkIn.enrolledAt : nil
            self.rollout = rollout
        }
    }

    private var decisions: [Key: Decision] = [:]

    /// The memo of the rolled-out generation's decisions in the same pass.
    lazy var rolledOut = DecisionMemo()

    /// An empty memo.
    public init() {}

    func decision(_ key: Key, _ evaluate: () -> Decision) -> Decision {
        if let known = decisions[key] { return known }
        let decision = evaluate()
        if decisions.count < 100_000 { decisions[key] = decision }
        return decision
    }
}
