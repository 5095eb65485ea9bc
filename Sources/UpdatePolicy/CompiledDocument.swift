import CivilTime
import MDMDiagnostics

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

struct Comparator<Bound: Sendable>: Sendable {
    var relation: RangeOperator
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

    /// The instant in the request's zone when it names one (*Update policies*: request, policy, defaults).
    func resolved(for request: UpdateRequest) -> Instant {
        guard let wall = floatingWall, let zone = request.timeZone else { return instant }
        return Instant(seconds: zone.instant(ofWallTime: wall), nanoseconds: nanoseconds)
    }
}

/// One policy's targeting, thresholds, dates and windows as plain values: evaluating it allocates nothing and
/// touches no reference count. Texts stay in the `Policy`, for `--explain` details and messages.
struct CompiledPolicy: Sendable {
    /// The app's token, or nil for `*`.
    var app: Int32?
    /// Tokens in `CompiledDocument.tokenLists`.
    var platforms: Span?
    var channels: Span?
    /// Patterns in `CompiledDocument.globs`.
    var deviceModels: Span?
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
///
/// The tables are plain memory the document owns, allocated once and never changed: reading them during an
/// evaluation retains nothing. (`@unchecked Sendable`: immutable after `init`, freed in `deinit`.)
final class CompiledDocument: @unchecked Sendable {
    let policies: UnsafeBufferPointer<CompiledPolicy>
    /// The policies' ids: reading one from a `Policy` in place would copy the whole policy first.
    let ids: UnsafeBufferPointer<String>
    /// Whole app versions, for ties that pre-release identifiers break and for output.
    let versions: [AppVersion]
    let appComparators: UnsafeBufferPointer<Comparator<VersionKey>>
    let osComparators: UnsafeBufferPointer<Comparator<OSKey>>
    /// Spans of `appComparators`, one per blocked range.
    let blockedRanges: UnsafeBufferPointer<Span>
    /// Every rollout seed followed by `:`, back to back.
    let seedBytes: UnsafeBufferPointer<UInt8>
    /// App ids, platforms and channels, each once: a request's are looked up once, policies hold numbers.
    let tokens: Tokens
    /// Lists of tokens (platforms, channels), back to back.
    let tokenLists: UnsafeBufferPointer<Int32>
    /// Device-model patterns: spans of `globBytes`.
    let globs: UnsafeBufferPointer<Span>
    let globBytes: UnsafeBufferPointer<UInt8>

    init(_ document: PolicyDocument) {
        var versions: [AppVersion] = []
        var appComparators: [Comparator<VersionKey>] = []
        var osComparators: [Comparator<OSKey>] = []
        var blockedRanges: [Span] = []
        var seedBytes: [UInt8] = []
        var tokens = Tokens()
        var tokenLists: [Int32] = []
        var globs: [Span] = []
        var globBytes: [UInt8] = []
        func tokenSpan(_ names: [String]) -> Span {
            let start = Int32(tokenLists.count)
            for name in names { tokenLists.append(tokens.insert(name)) }
            return Span(start: start, count: Int32(tokenLists.count) - start)
        }
        func key(_ version: AppVersion) -> VersionKey {
            versions.append(version)
            return VersionKey(
                core: version.core, hasPreRelease: !version.preRelease.isEmpty, index: Int32(versions.count - 1))
        }
        func appSpan(_ range: VersionRange<AppVersion>) -> Span {
            let start = Int32(appComparators.count)
            for (op, bound) in range.comparators {
                appComparators.append(Comparator(relation: op, bound: key(bound)))
            }
            return Span(start: start, count: Int32(appComparators.count) - start)
        }
        let ranks = Dictionary(
            document.policies.indices.sorted {
                document.policies[$0].id.utf8Precedes(document.policies[$1].id)
            }.enumerated().map { ($1, Int32($0)) }, uniquingKeysWith: { first, _ in first })
        var policies: [CompiledPolicy] = []
        policies.reserveCapacity(document.policies.count)
        for (index, policy) in document.policies.enumerated() {
            let zone = policy.timeZone ?? document.defaults.timeZone
            var compiled = CompiledPolicy(
                app: policy.app == "*" ? nil : tokens.insert(policy.app),
                platforms: policy.platforms.map(tokenSpan), channels: policy.channels.map(tokenSpan),
                approachingSeconds: policy.approachingWindow.seconds,
                imminentSeconds: policy.imminentWindow.seconds, onIndeterminate: policy.onIndeterminate,
                priority: policy.priority, idRank: ranks[index] ?? 0)
            if let range = policy.osVersion {
                let start = Int32(osComparators.count)
                for (op, bound) in range.comparators {
                    osComparators.append(Comparator(relation: op, bound: OSKey(bound)))
                }
                compiled.osRange = Span(start: start, count: Int32(osComparators.count) - start)
            }
            compiled.appRange = policy.appVersion.map(appSpan)
            if let patterns = policy.deviceModels {
                let start = Int32(globs.count)
                for glob in patterns {
                    globs.append(Span(start: Int32(globBytes.count), count: Int32(glob.pattern.count)))
                    globBytes += glob.pattern
                }
                compiled.deviceModels = Span(start: start, count: Int32(globs.count) - start)
            }
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
        self.policies = Self.table(policies)
        self.ids = Self.table(document.policies.map(\.id))
        self.versions = versions
        self.appComparators = Self.table(appComparators)
        self.osComparators = Self.table(osComparators)
        self.blockedRanges = Self.table(blockedRanges)
        self.seedBytes = Self.table(seedBytes)
        self.tokens = tokens
        self.tokenLists = Self.table(tokenLists)
        self.globs = Self.table(globs)
        self.globBytes = Self.table(globBytes)
    }

    deinit {
        UnsafeMutableBufferPointer(mutating: policies).deallocate()
        UnsafeMutableBufferPointer(mutating: ids).deinitialize()
        UnsafeMutableBufferPointer(mutating: ids).deallocate()
        UnsafeMutableBufferPointer(mutating: appComparators).deallocate()
        UnsafeMutableBufferPointer(mutating: osComparators).deallocate()
        UnsafeMutableBufferPointer(mutating: blockedRanges).deallocate()
        UnsafeMutableBufferPointer(mutating: seedBytes).deallocate()
        UnsafeMutableBufferPointer(mutating: tokenLists).deallocate()
        UnsafeMutableBufferPointer(mutating: globs).deallocate()
        UnsafeMutableBufferPointer(mutating: globBytes).deallocate()
    }

    /// A copy of `elements` in memory of its own (only `ids` needs deinitializing: the rest are plain values).
    private static func table<Element>(_ elements: [Element]) -> UnsafeBufferPointer<Element> {
        let start = UnsafeMutablePointer<Element>.allocate(capacity: max(elements.count, 1))
        _ = UnsafeMutableBufferPointer(start: start, count: elements.count).initialize(from: elements)
        return UnsafeBufferPointer(start: start, count: elements.count)
    }

    /// Policy `index`, read in place: a `CompiledPolicy` is large, and evaluation reads a few of its fields.
    func rule(_ index: Int) -> UnsafePointer<CompiledPolicy> {
        UnsafePointer(policies.baseAddress.unsafelyUnwrapped) + index
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

    /// Whether an app version satisfies every comparator of a range.
    func contains(_ span: Span, _ key: VersionKey, _ version: AppVersion) -> Bool {
        appComparators[span.range].allSatisfy { $0.relation.holds(order(key, version, $0.bound)) }
    }

    /// Whether an OS version satisfies every comparator of a range.
    func contains(_ span: Span, _ os: OSKey) -> Bool {
        osComparators[span.range].allSatisfy { $0.relation.holds(os < $0.bound ? -1 : $0.bound < os ? 1 : 0) }
    }

    /// Whether an app version is inside any of a policy's blocked ranges.
    func isBlocked(_ span: Span, _ key: VersionKey, _ version: AppVersion) -> Bool {
        blockedRanges[span.range].contains { contains($0, key, version) }
    }

    /// Whether a list of tokens holds `token` (nil when the request's value appears in no policy).
    func list(_ span: Span, contains token: Int32?) -> Bool {
        guard let token else { return false }
        return tokenLists[span.range].contains(token)
    }

    /// Whether a lowercased device model matches any of a policy's patterns.
    func matches(_ span: Span, model: UnsafeBufferPointer<UInt8>) -> Bool {
        globs[span.range].contains {
            ModelGlob.matches(UnsafeBufferPointer(rebasing: globBytes[$0.range]), lowercased: model)
        }
    }

    /// The rollout bucket of a request's normalized device id under one policy's seed.
    func bucket(_ seed: Span, id: UnsafeBufferPointer<UInt8>) -> Int {
        Rollout.bucket(prefix: UnsafeBufferPointer(rebasing: seedBytes[seed.range]), id: id)
    }
}

/// Strings numbered in the order first seen. Documents have a handful (an app or two, a few platforms and
/// channels): a lookup compares them in turn, and hashes only when there are many.
struct Tokens: Sendable {
    private var names: [String] = []
    private var numbers: [String: Int32] = [:]

    mutating func insert(_ name: String) -> Int32 {
        if let number = numbers[name] { return number }
        let number = Int32(names.count)
        names.append(name)
        numbers[name] = number
        return number
    }

    func number(of name: String) -> Int32? {
        guard names.count <= 16 else { return numbers[name] }
        return names.firstIndex(of: name).map(Int32.init)
    }
}
