import CivilTime
import MDMConf
import UpdatePolicy

/// One simulated device: what it runs, and what the catalog should answer for each of its apps.
public struct DevicePlan: Sendable, Equatable {
    public struct App: Sendable, Equatable {
        public var app: String
        public var version: String
        /// The decision the catalog gives this device for this version when the plan was made (nil for an app
        /// without update rules).
        public var expected: Outcome?
    }

    public var device: String
    public var platform: String
    public var osVersion: String
    public var deviceModel: String
    public var locale: String
    public var timeZone: String
    public var apps: [App]
}

/// Draws realistic devices for a catalog: most run a current version, and some are behind a recommendation,
/// below a minimum or on a blocked version, or on an OS too old for the update they need, so that every
/// decision kind the catalog's rules can give occurs. The draw is decided by the catalog's own evaluator (the
/// code that answers devices) and a seed, so the same seed gives the same fleet.
public enum FleetPlanner {
    /// The share of devices aimed at each decision, in this order; the first devices take one of each.
    static let mix: [(Outcome, Int)] = [(.ok, 55), (.recommended, 20), (.required, 15), (.unsupported, 10)]

    public static func plan(catalog: Catalog, devices: [String], seed: UInt64, now: Instant) -> [DevicePlan] {
        var random = SplitMix(seed: seed)
        let apps = catalog.appIDs.compactMap { catalog.apps[$0] }
        let candidates = apps.map { app in (app, versions(of: app.updatePolicy.document)) }
        let systems = osVersions(of: apps.map(\.updatePolicy.document))
        let platform =
            apps.lazy.compactMap { $0.updatePolicy.document.policies.lazy.compactMap(\.platforms).first?.first }
            .first ?? "ios"
        let models = platform == "ipados" ? ["iPad13,18", "iPad14,3"] : ["iPhone14,7", "iPhone15,2", "iPhone16,1"]
        let places = [
            ("en-US", "America/New_York"), ("pt-BR", "America/Sao_Paulo"), ("de-DE", "Europe/Berlin"),
            ("en-GB", "Europe/London"),
        ]

        return devices.enumerated().map { index, device in
            let aim = index < mix.count ? mix[index].0 : pick(&random)
            // A device the inventory says is Android plays one: its platform, models and OS, its apps' JSON.
            let android = catalog.devices[device]?.platform == .android
            let platform = android ? "android" : platform
            let models = android ? ["Pixel 8", "SM-S921B", "Pixel 7a"] : models
            func decision(_ app: CatalogApp, _ version: String, _ os: String) -> Outcome? {
                guard app.hasUpdatePolicy, let parsed = AppVersion(version) else { return nil }
                var request = UpdateRequest(app: app.id, version: parsed, platform: platform)
                request.osVersion = OSVersion(os)
                request.deviceID = device
                return app.updatePolicy.evaluate(request, now: now).decision
            }
            // The OS: the newest one unless the aim is `unsupported` and some version is unsupported on an older one.
            var os = android ? "15" : systems.last ?? "17.4.1"
            if !android, aim == .unsupported, let (app, versions) = candidates.first(where: { $0.0.hasUpdatePolicy }) {
                let pairs = systems.flatMap { system in versions.map { (system, $0) } }
                    .filter { decision(app, $0.1, $0.0) == .unsupported }
                if !pairs.isEmpty { os = pairs[Int(random.next() % UInt64(pairs.count))].0 }
            }
            let place = places[index % places.count]
            let planned = candidates.map { app, versions -> DevicePlan.App in
                guard app.hasUpdatePolicy, !versions.isEmpty else {
                    return DevicePlan.App(app: app.id, version: "1.0", expected: nil)
                }
                let matching = versions.filter { decision(app, $0, os) == aim }
                let pool = matching.isEmpty ? versions.filter { decision(app, $0, os) == .ok } : matching
                let version = (pool.isEmpty ? versions : pool)[
                    Int(random.next() % UInt64((pool.isEmpty ? versions : pool).count))]
                return DevicePlan.App(app: app.id, version: version, expected: decision(app, version, os))
            }
            return DevicePlan(
                device: device, platform: platform, osVersion: os, deviceModel: models[index % models.count],
                locale: place.0, timeZone: place.1, apps: planned)
        }
    }

    private static func pick(_ random: inout SplitMix) -> Outcome {
        var roll = Int(random.next() % 100)
        for (outcome, share) in mix {
            if roll < share { return outcome }
            roll -= share
        }
        return .ok
    }

    /// Versions around every version the rules name: each one, just below it and just above it.
    static func versions(of document: PolicyDocument) -> [String] {
        var named: [String] = []
        for policy in document.policies {
            named += [policy.minVersion, policy.recommendedVersion, policy.latestVersion].compactMap { $0?.text }
            for range in policy.blockedVersions ?? [] { named += range.comparators.map(\.1.text) }
            if let range = policy.appVersion { named += range.comparators.map(\.1.text) }
        }
        var all: [String] = []
        for text in named { all += [below(text), text, above(text)].compactMap { $0 } }
        let parsed = unique(all).compactMap { text in AppVersion(text).map { (text, $0) } }
        return parsed.sorted { $0.1 < $1.1 }.map(\.0)
    }

    /// OS versions around every `requiresOS` and OS range, and a current one.
    static func osVersions(of documents: [PolicyDocument]) -> [String] {
        var named = ["17.4.1"]
        for policy in documents.flatMap(\.policies) {
            if let os = policy.requiresOS { named += [os.text, below(os.text)].compactMap { $0 } }
            if let range = policy.osVersion {
                named += range.comparators.flatMap { [$0.1.text, below($0.1.text)] }.compactMap { $0 }
            }
        }
        let parsed = unique(named).compactMap { text in OSVersion(text).map { (text, $0) } }
        return parsed.sorted { $0.1 < $1.1 }.map(\.0)
    }

    /// `3.0.2` → `3.0.1`, `3.0` → `2.9`, `1.0.0` → `0.9.9`; nil below `0`.
    static func below(_ text: String) -> String? {
        let numbers = text.split(separator: ".").compactMap { Int($0) }
        guard numbers.count == text.split(separator: ".").count, var parts = Optional(numbers),
            let last = parts.lastIndex(where: { $0 > 0 })
        else { return nil }
        parts[last] -= 1
        for index in parts.indices where index > last { parts[index] = 9 }
        return parts.map(String.init).joined(separator: ".")
    }

    /// `3.0` → `3.0.1`, `3.2.1` → `3.2.2`.
    static func above(_ text: String) -> String? {
        var parts = text.split(separator: ".").compactMap { Int($0) }
        guard !parts.isEmpty, parts.count == text.split(separator: ".").count else { return nil }
        if parts.count < 3 { return text + ".1" }
        parts[parts.count - 1] += 1
        return parts.map(String.init).joined(separator: ".")
    }

    private static func unique(_ items: [String]) -> [String] {
        var seen = Set<String>()
        return items.filter { seen.insert($0).inserted }
    }
}

/// A small seeded generator (SplitMix64), so a seed gives the same fleet on every platform.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
