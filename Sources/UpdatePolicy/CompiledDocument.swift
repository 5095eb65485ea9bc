import CivilTime

/// An app version reduced to plain values: its core, and where the whole version is kept for the rare
/// comparisons that pre-release identifiers decide.
struct VersionKey: Sendable {
    var core: VersionCore
    var hasPreRelease: Bool
    /// The whole version's index in `CompiledDocument.versions` (or -1 for a request's own version).
    var index: Int32
}

/// An OS version without its text.
struct OSKey: Comparable, Sendable {
    var core: VersionCore
    var supplemental: UInt8

    init(_ version: OSVersion) {
        core = version.core
        supplemental = version.supplemental
    }

    static func < (lhs: OSKey, rhs: OSKey) -> Bool {
        lhs.core != rhs.core ? lhs.core < rhs.core : lhs.supplemental < rhs.supplemental
    }
}

/// How a comparator relates a version to its bound.
enum Relation: UInt8 {
    case atLeast, atMost, greater, less, equal

    init<Version>(_ op: VersionRange<Version>.Operator) {
        switch op {
        case .atLeast: self = .atLeast
        case .atMost: self = .atMost
        case .greater: self = .greater
        case .less: self = .less
        case .equal: self = .equal
        }
    }

    /// Whether a version that compares to the bound as `order` (negative, zero, positive) satisfies it.
    func holds(_ order: Int) -> Bool {
        switch self {
        case .atLeast: order >= 0
        case .atMost: order <= 0
        case .greater: order > 0
        case .less: order < 0
        case .equal: order == 0
        }
    }
}

struct Comparator<Bound: Sendable>: Sendable {
    var relation: Relation
    var bound: Bound
}

/// A run of entries in one of the compiled document's tables.
struct Span: Sendable {
    var start: Int32
    var count: Int32

    var range: Range<Int> { Int(start)..<Int(start) + Int(count) }
}

/// A date-time of a policy: its instant when the request names no zone (absolute, or floating resolved in the
/// policy's zone, else the document's default zone, else UTC), and its wall-clock time when it is floating.
struct CompiledDate: Sendable {
    var instant: Instant
    var floatingWall: Int64?
    var nanoseconds: Int32

    init(_ dateTime: PolicyDateTime, zone: ZoneInfo?) {
        instant = dateTime.resolved(in: zone)
        nanoseconds = instant.nanoseconds
        if case .floating(let wall, _) = dateTime.kind { floatingWall = wall }
    }

    /// The instant in the request's zone when it names one (update-policy.md 3.6: request, policy, defaults).
    func resolved(for request: UpdateRequest) -> Instant {
        guard let wall = floatingWall, let zone = request.timeZone else { return instant }
        return Instant(seconds: zone.instant(ofWallTime: wall), nanoseconds: nanoseconds)
    }
}

/// One policy's targeting, thresholds, dates and windows as plain values: evaluating it allocates nothing and
/// touches no reference count. Lists (platforms, channels, device models) and texts stay in the `Policy`.
struct CompiledPolicy: Sendable {
    var isWildcard: Bool
    var osRange: Span?
    var appRange: Span?
    var notBefore: CompiledDate?
    /// Hundredths of a percent, or nil without a rollout.
    var rolloutHundredths: Int?
    /// The seed and a colon in `CompiledDocument.seedBytes`.
    var seed = Span(start: 0, count: 0)
    var minVersion: VersionKey?
    var minBuild: VersionCore?
    /// Blocked ranges in `CompiledDocument.blockedRanges`.
    var blocked: Span?
    var recommendedVersion: VersionKey?
    var recommendedBuild: VersionCore?
    var latestVersion: VersionKey?
    var deadline: CompiledDate?
    var approachingSeconds: Int64
    var imminentSeconds: Int64
    var maxDeferrals: Int64?
    var newDeviceGraceSeconds: Int64?
    var requiresOS: OSKey?
    var onIndeterminate: IndeterminateAction
    var priority: Int64
    /// The policy's position among all ids in UTF-8 byte order: the last tie-breaker between winners.
    var idRank: Int32
}

/// A policy document compiled once for evaluation (see `CompiledPolicy`).
final class CompiledDocument: Sendable {
    let policies: [CompiledPolicy]
    /// Whole app versions, for ties that pre-release identifiers break and for output.
    let versions: [AppVersion]
    let appComparators: [Comparator<VersionKey>]
    let osComparators: [Comparator<OSKey>]
    /// Spans of `appComparators`, one per blocked range.
    let blockedRanges: [Span]
    /// Every rollout seed followed by `:`, back to back.
    let seedBytes: [UInt8]

    init(_ document: PolicyDocument) {
        var versions: [AppVersion] = []
        var appComparators: [Comparator<VersionKey>] = []
        var osComparators: [Comparator<OSKey>] = []
        var blockedRanges: [Span] = []
        var seedBytes: [UInt8] = []
        func key(_ version: AppVersion) -> VersionKey {
            versions.append(version)
            return VersionKey(
                core: version.core, hasPreRelease: !version.preRelease.isEmpty, index: Int32(versions.count - 1))
        }
        func appSpan(_ range: VersionRange<AppVersion>) -> Span {
            let start = Int32(appComparators.count)
            for (op, bound) in range.comparators {
                appComparators.append(Comparator(relation: Relation(op), bound: key(bound)))
            }
            return Span(start: start, count: Int32(appComparators.count) - start)
        }
        let ranks = Dictionary(
            document.policies.indices.sorted {
                document.policies[$0].id.utf8.lexicographicallyPrecedes(document.policies[$1].id.utf8)
            }.enumerated().map { ($1, Int32($0)) }, uniquingKeysWith: { first, _ in first })
        var policies: [CompiledPolicy] = []
        policies.reserveCapacity(document.policies.count)
        for (index, policy) in document.policies.enumerated() {
            let zone = policy.timeZone ?? document.defaults.timeZone
            var compiled = CompiledPolicy(
                isWildcard: policy.app == "*", approachingSeconds: policy.approachingWindow.seconds,
                imminentSeconds: policy.imminentWindow.seconds, onIndeterminate: policy.onIndeterminate,
                priority: policy.priority, idRank: ranks[index] ?? 0)
            if let range = policy.osVersion {
                let start = Int32(osComparators.count)
                for (op, bound) in range.comparators {
                    osComparators.append(Comparator(relation: Relation(op), bound: OSKey(bound)))
                }
                compiled.osRange = Span(start: start, count: Int32(osComparators.count) - start)
            }
            compiled.appRange = policy.appVersion.map(appSpan)
            compiled.notBefore = policy.notBefore.map { CompiledDate($0, zone: zone) }
            if let rollout = policy.rollout {
                compiled.rolloutHundredths = rollout.percent.hundredths
                let start = Int32(seedBytes.count)
                seedBytes += rollout.seed.utf8
                seedBytes.append(0x3A)
                compiled.seed = Span(start: start, count: Int32(seedBytes.count) - start)
            }
            compiled.minVersion = policy.minVersion.map(key)
            compiled.minBuild = policy.minBuild?.core
            if let blocked = policy.blockedVersions {
                let start = Int32(blockedRanges.count)
                for range in blocked { blockedRanges.append(appSpan(range)) }
                compiled.blocked = Span(start: start, count: Int32(blockedRanges.count) - start)
            }
            compiled.recommendedVersion = policy.recommendedVersion.map(key)
            compiled.recommendedBuild = policy.recommendedBuild?.core
            compiled.latestVersion = policy.latestVersion.map(key)
            compiled.deadline = policy.deadline.map { CompiledDate($0, zone: zone) }
            compiled.maxDeferrals = policy.maxDeferrals
            compiled.newDeviceGraceSeconds = policy.newDeviceGrace?.seconds
            compiled.requiresOS = policy.requiresOS.map(OSKey.init)
            policies.append(compiled)
        }
        self.policies = policies
        self.versions = versions
        self.appComparators = appComparators
        self.osComparators = osComparators
        self.blockedRanges = blockedRanges
        self.seedBytes = seedBytes
    }

    /// The order of `version` (described by `key`) against `bound`: negative, zero or positive. Cores decide
    /// almost always; a tie between two pre-releases compares the whole versions.
    func order(_ key: VersionKey, _ version: AppVersion, _ bound: VersionKey) -> Int {
        if key.core != bound.core { return key.core < bound.core ? -1 : 1 }
        switch (key.hasPreRelease, bound.hasPreRelease) {
        case (false, false): return 0
        case (true, false): return -1
        case (false, true): return 1
        case (true, true):
            let other = versions[Int(bound.index)]
            return version < other ? -1 : other < version ? 1 : 0
        }
    }

    /// The order of two keys of this document's versions.
    func order(_ lhs: VersionKey, _ rhs: VersionKey) -> Int {
        order(lhs, versions[Int(lhs.index)], rhs)
    }

    func contains(_ span: Span, _ key: VersionKey, _ version: AppVersion) -> Bool {
        appComparators.withUnsafeBufferPointer { comparators in
            for index in span.range where !comparators[index].relation.holds(order(key, version, comparators[index].bound)) {
                return false
            }
            return true
        }
    }

    func contains(_ span: Span, _ os: OSKey) -> Bool {
        osComparators.withUnsafeBufferPointer { comparators in
            for index in span.range {
                let bound = comparators[index].bound
                if !comparators[index].relation.holds(os < bound ? -1 : bound < os ? 1 : 0) { return false }
            }
            return true
        }
    }
}
