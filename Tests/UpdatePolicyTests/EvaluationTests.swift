import CivilTime
import MDMDiagnostics
import Testing
import UpdatePolicy

/// Decisions of *Update policies*, boundary by boundary.
@Suite(.enabled(if: ZoneInfo(named: "America/New_York") != nil, "no tz database on this machine"))
struct EvaluationTests {
    static func evaluator(_ policies: String, defaults: String = "") throws -> Evaluator {
        let text = """
            <plist><dict><key>schemaVersion</key><integer>1</integer>\(defaults)<key>policies</key><array>\(policies)</array></dict></plist>
            """
        let result = PolicyLoader().load(Array(text.utf8), file: "policy.plist")
        let document = try #require(result.document, "\(result.diagnostics.map(\.message))")
        return Evaluator(document)
    }

    static func policy(_ id: String, _ body: String, app: String = "com.acme.app") -> String {
        "<dict><key>id</key><string>\(id)</string><key>app</key><string>\(app)</string>\(body)</dict>"
    }

    static func decide(_ evaluator: Evaluator, _ fields: [String: String], explain: Bool = false) throws -> Decision {
        var values = ["app": "com.acme.app", "version": "2.0", "platform": "ios", "now": "2025-06-01T00:00:00Z"]
        for (key, value) in fields { values[key] = value }
        let request = try UpdateRequest.parse(values).get()
        return evaluator.evaluate(request, now: Instant(seconds: 0), explain: explain)
    }

    static let deadlinePolicy = policy(
        "d",
        "<key>minVersion</key><string>3.0</string><key>deadline</key><string>2025-06-10T00:00:00Z</string><key>latestVersion</key><string>3.1</string>"
    )

    @Test(arguments: [
        ("2025-06-10T00:00:00Z", Outcome.required, Urgency.critical, "deadline_passed"),
        ("2025-06-09T23:59:59Z", .recommended, .imminent, "deadline_pending"),
        ("2025-06-09T00:00:00Z", .recommended, .imminent, "deadline_pending"),
        ("2025-06-08T23:59:59Z", .recommended, .approaching, "deadline_pending"),
        ("2025-06-07T00:00:00Z", .recommended, .approaching, "deadline_pending"),
        ("2025-06-06T23:59:59Z", .recommended, .initial, "deadline_pending"),
    ])
    func deadlineBoundaries(_ now: String, _ outcome: Outcome, _ urgency: Urgency, _ reason: String) throws {
        let decision = try Self.decide(try Self.evaluator(Self.deadlinePolicy), ["now": now])
        #expect(decision.decision == outcome)
        #expect(decision.urgency == urgency)
        #expect(decision.reasons.map(\.code) == ["below_min_version", reason])
        #expect(decision.targetVersion == "3.1")
        #expect(decision.deadline?.description == (outcome == .recommended ? "2025-06-10T00:00:00Z" : nil))
    }

    @Test func floatingDeadlineUsesRequestThenPolicyThenDefaultZone() throws {
        let evaluator = try Self.evaluator(
            Self.policy(
                "f",
                "<key>minVersion</key><string>3.0</string><key>deadline</key><string>2025-03-09T02:30:00</string><key>timeZone</key><string>America/New_York</string>"
            ),
            defaults: "<key>defaults</key><dict><key>timeZone</key><string>Europe/Berlin</string></dict>")
        // Policy zone: New York, 02:30 does not exist → 07:30Z.
        #expect(try Self.decide(evaluator, ["now": "2025-03-09T07:29:59Z"]).decision == .recommended)
        #expect(try Self.decide(evaluator, ["now": "2025-03-09T07:30:00Z"]).decision == .required)
        // The request's zone wins: Tokyo 02:30 is 2025-03-08T17:30Z.
        #expect(
            try Self.decide(evaluator, ["now": "2025-03-08T17:30:00Z", "timeZone": "Asia/Tokyo"]).decision == .required)
        #expect(
            try Self.decide(evaluator, ["now": "2025-03-08T17:29:00Z", "timeZone": "Asia/Tokyo"]).decision
                == .recommended)
    }

    @Test(arguments: [
        (Int64(0), Outcome.recommended, Int64(2)), (1, .recommended, 1), (2, .required, 0), (5, .required, 0),
    ])
    func deferrals(_ used: Int64, _ outcome: Outcome, _ remaining: Int64) throws {
        let evaluator = try Self.evaluator(
            Self.policy(
                "d",
                "<key>minVersion</key><string>3.0</string><key>deadline</key><string>2025-07-01T00:00:00Z</string><key>maxDeferrals</key><integer>2</integer>"
            ))
        let decision = try Self.decide(evaluator, ["deferralsUsed": String(used)])
        #expect(decision.decision == outcome)
        #expect(decision.deferralsRemaining == remaining)
        if outcome == .required { #expect(decision.reasons.last?.code == "deferrals_exhausted") }
    }

    @Test func newDeviceGraceExtendsThePassedDeadline() throws {
        let evaluator = try Self.evaluator(
            Self.policy(
                "g",
                "<key>minVersion</key><string>3.0</string><key>deadline</key><string>2025-05-01T00:00:00Z</string><key>newDeviceGrace</key><string>7d</string>"
            ))
        let fresh = try Self.decide(evaluator, ["enrolledAt": "2025-05-30T00:00:00Z"])
        #expect(fresh.decision == .recommended)
        #expect(fresh.reasons.map(\.code) == ["below_min_version", "new_device_grace", "deadline_pending"])
        #expect(fresh.deadline?.description == "2025-06-06T00:00:00Z")
        let old = try Self.decide(evaluator, ["enrolledAt": "2025-01-01T00:00:00Z"])
        #expect(old.decision == .required)
        #expect(old.reasons.map(\.code) == ["below_min_version", "deadline_passed"])
    }

    @Test func osSupport() throws {
        let hard = try Self.evaluator(
            Self.policy("h", "<key>minVersion</key><string>3.0</string><key>requiresOS</key><string>17.0</string>"))
        let old = try Self.decide(hard, ["osVersion": "16.7.2"])
        #expect(old.decision == .unsupported)
        #expect(old.urgency == .critical)
        #expect(old.reasons.map(\.code) == ["below_min_version", "os_too_old_for_target"])
        #expect(try Self.decide(hard, ["osVersion": "17.4.1 (a)"]).decision == .required)
        #expect(
            try Self.decide(hard, [:]).reasons.map(\.code) == ["below_min_version", "os_unknown_assumed_supported"])
        let soft = try Self.evaluator(
            Self.policy(
                "s", "<key>recommendedVersion</key><string>3.0</string><key>requiresOS</key><string>17.0</string>"))
        let quiet = try Self.decide(soft, ["osVersion": "16.0"])
        #expect(quiet.decision == .ok)
        #expect(quiet.reasons.map(\.code) == ["os_too_old_for_recommended"])
        let nag = try Self.decide(soft, ["osVersion": "17.1"])
        #expect(nag.decision == .recommended)
        #expect(nag.urgency == .low)
        #expect(nag.targetVersion == "3.0")
    }

    @Test(arguments: [
        ("error", nil as String?, Outcome.error, ["missing_attribute(build)"]),
        ("required", nil, .required, ["indeterminate_treated_as_required"]),
        ("ok", nil, .ok, ["indeterminate_treated_as_ok"]),
        ("error", "99", .required, ["below_min_build"]),
        ("error", "100", .ok, []),
    ])
    func buildThresholds(_ action: String, _ build: String?, _ outcome: Outcome, _ reasons: [String]) throws {
        let evaluator = try Self.evaluator(
            Self.policy(
                "b",
                "<key>minVersion</key><string>2.0</string><key>minBuild</key><string>100</string><key>onIndeterminate</key><string>\(action)</string>"
            ))
        var fields: [String: String] = [:]
        if let build { fields["build"] = build }
        let decision = try Self.decide(evaluator, fields)
        #expect(decision.decision == outcome)
        #expect(decision.reasons.map(\.code) == reasons)
        // A higher version meets the threshold without looking at the build.
        #expect(try Self.decide(evaluator, ["version": "2.0.1"]).decision == .ok)
    }

    @Test func blockedVersionsAndPreReleases() throws {
        let evaluator = try Self.evaluator(
            Self.policy(
                "pulled",
                "<key>blockedVersions</key><array><string>&gt;=2.4.0 &lt;2.4.3</string><string>=3.1.0</string></array><key>latestVersion</key><string>3.2.1</string>"
            ))
        #expect(try Self.decide(evaluator, ["version": "2.4.3-rc.1"]).decision == .required)
        #expect(try Self.decide(evaluator, ["version": "2.4.0-beta.1"]).decision == .ok)
        let blocked = try Self.decide(evaluator, ["version": "3.1.0+77"])
        #expect(blocked.reasons.map(\.code) == ["blocked_version"])
        #expect(blocked.targetVersion == "3.2.1")
    }

    @Test(arguments: [
        ("<key>platforms</key><array><string>android</string></array>", [String: String](), "platform_mismatch"),
        ("<key>channels</key><array><string>beta</string></array>", [:], "channel_mismatch"),
        ("<key>osVersion</key><string>&gt;=17</string>", [:], "missing_attribute(osVersion)"),
        ("<key>osVersion</key><string>&gt;=17</string>", ["osVersion": "16.1"], "os_version_mismatch"),
        ("<key>appVersion</key><string>&lt;2.0</string>", [:], "app_version_mismatch"),
        ("<key>deviceModels</key><array><string>iPad*</string></array>", [:], "missing_attribute(deviceModel)"),
        (
            "<key>deviceModels</key><array><string>iPad*</string></array>", ["deviceModel": "iPhone15,2"],
            "device_model_mismatch"
        ),
        ("<key>notBefore</key><string>2025-06-01T00:00:01Z</string>", [:], "not_yet_active"),
        ("<key>rollout</key><dict><key>percent</key><real>50</real></dict>", [:], "not_in_rollout"),
    ])
    func targetingSkips(_ keys: String, _ fields: [String: String], _ code: String) throws {
        let evaluator = try Self.evaluator(Self.policy("t", "<key>minVersion</key><string>3.0</string>" + keys))
        let decision = try Self.decide(evaluator, fields)
        #expect(decision.decision == .ok)
        #expect(decision.skipped == [Reason(policy: "t", code: code)])
        #expect(decision.reasons.isEmpty)
    }

    @Test func rolloutReferenceValuesDecide() throws {
        let make = { (percent: String) in
            try Self.evaluator(
                Self.policy(
                    "r",
                    "<key>minVersion</key><string>3.0</string><key>rollout</key><dict><key>percent</key><string>\(percent)</string><key>seed</key><string>pilot-2025</string></dict>"
                ))
        }
        #expect(try Self.decide(try make("68.36"), ["deviceId": "device-0001"]).decision == .required)
        #expect(try Self.decide(try make("68.35"), ["deviceId": "device-0001"]).skipped.first?.code == "not_in_rollout")
        let explained = try Self.decide(try make("52.35"), ["deviceId": "device-0002"], explain: true)
        #expect(explained.trace?.first?.checks.first { $0.check == "rollout" }?.detail == "bucket 5234, threshold 5235")
    }

    @Test func combinationIsIndependentOfOrder() throws {
        let policies = [
            Self.policy("soft", "<key>recommendedVersion</key><string>2.5</string>"),
            Self.policy(
                "late",
                "<key>minVersion</key><string>3.0</string><key>deadline</key><string>2025-07-01T00:00:00Z</string><key>latestVersion</key><string>3.0.2</string>"
            ),
            Self.policy(
                "early",
                "<key>minVersion</key><string>2.8</string><key>deadline</key><string>2025-06-05T00:00:00Z</string><key>maxDeferrals</key><integer>3</integer>"
            ),
            Self.policy("other", "<key>minVersion</key><string>9.0</string>", app: "com.other.app"),
        ]
        var seen: Set<String> = []
        for permutation in [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]] {
            let decision = try Self.decide(try Self.evaluator(permutation.map { policies[$0] }.joined()), [:])
            #expect(decision.decision == .recommended)
            #expect(decision.policy == "early", "the earliest pending deadline is primary")
            #expect(decision.targetVersion == "3.0.2")
            #expect(decision.deadline?.description == "2025-06-05T00:00:00Z")
            #expect(decision.urgency == .initial)
            #expect(decision.deferralsRemaining == 3)
            #expect(!decision.reasons.contains { $0.policy == "other" })
            seen.insert(Set(decision.reasons.map { "\($0.policy ?? ""):\($0.code)" }).sorted().joined(separator: ","))
        }
        #expect(seen.count == 1)
    }

    @Test func requiredBeatsErrorAndErrorIsNeverOK() throws {
        let evaluator = try Self.evaluator(
            Self.policy("needs-build", "<key>minBuild</key><string>10</string>")
                + Self.policy(
                    "floor", "<key>minVersion</key><string>3.0</string><key>priority</key><integer>5</integer>"))
        let required = try Self.decide(evaluator, [:])
        #expect(required.decision == .required)
        #expect(required.policy == "floor")
        let errorOnly = try Self.evaluator(Self.policy("needs-build", "<key>minBuild</key><string>10</string>"))
        let error = try Self.decide(errorOnly, [:])
        #expect(error.decision == .error)
        #expect(error.exitCode == 65)
        #expect(error.urgency == .none)
        #expect(error.message == nil)
    }

    @Test func messagesFallBackByPrefixThenDefaultLocale() throws {
        let evaluator = try Self.evaluator(
            Self.policy(
                "m",
                """
                <key>minVersion</key><string>3.0</string><key>defaultLocale</key><string>en</string>
                <key>messages</key><dict>
                  <key>en</key><dict><key>title</key><string>Update</string></dict>
                  <key>zh-Hant</key><dict><key>title</key><string>更新</string><key>body</key><string>請更新</string></dict>
                </dict>
                <key>updateUrl</key><dict><key>en</key><string>https://example.com/en</string><key>zh</key><string>https://example.com/zh</string></dict>
                """))
        let chinese = try Self.decide(evaluator, ["locale": "ZH-hant-TW"])
        #expect(chinese.message?.locale == "zh-Hant")
        #expect(chinese.message?.title == "更新")
        #expect(chinese.updateURL == "https://example.com/zh")
        let french = try Self.decide(evaluator, ["locale": "fr_CA"])
        #expect(french.message?.locale == "en")
        #expect(french.message?.body == nil)
        #expect(french.updateURL == "https://example.com/en")
    }

    @Test func invalidRequestsListEveryMalformedField() {
        let result = UpdateRequest.parse([
            "app": "a", "version": "2.x", "platform": "iOS", "osVersion": "17.x", "now": "2025-06-01T00:00:00",
            "deferralsUsed": "-1", "color": "red",
        ])
        guard case .failure(let errors) = result else {
            Issue.record("expected errors")
            return
        }
        #expect(
            Set(errors.reasons) == [
                "invalid_version", "invalid_os_version", "invalid_now", "invalid_deferrals", "unknown_field",
            ])
        let missing = UpdateRequest.parse(["version": "1"])
        guard case .failure(let missingErrors) = missing else { return }
        #expect(Set(missingErrors.reasons) == ["invalid_app", "invalid_platform"])
    }

    // The evaluator compiles versions to plain keys: ties between pre-releases and versions written differently
    // must still decide exactly as the grammar orders them.
    @Test(arguments: [
        ("3.1.0-beta.2", Outcome.required, ["below_min_version"]),
        ("3.1.0-beta.9", .required, ["below_min_version"]),
        ("3.1.0-beta.10", .ok, []),
        ("v3.1-beta.10+77", .ok, []),
        ("3.1.0-beta.11", .ok, []),
        ("3.1.0-alpha", .required, ["below_min_version"]),
        ("3.1.0", .ok, []),
        ("2.3.0-beta.1", .required, ["below_min_version", "blocked_version"]),
        ("2.4.2-rc.1", .required, ["below_min_version", "blocked_version"]),
        ("2.4.2", .required, ["below_min_version"]),
    ])
    func preReleaseTiesAgainstCompiledKeys(_ version: String, _ outcome: Outcome, _ reasons: [String]) throws {
        let evaluator = try Self.evaluator(
            Self.policy(
                "floor",
                """
                <key>minVersion</key><string>3.1.0-beta.10</string>
                <key>blockedVersions</key><array><string>2.3.0-beta.1</string><string>&gt;2.4.0 &lt;=2.4.2-rc.1</string></array>
                """))
        let decision = try Self.decide(evaluator, ["version": version])
        #expect(decision.decision == outcome)
        #expect(decision.reasons.map(\.code) == reasons)
    }

    @Test func equalTargetsWrittenDifferentlyKeepThePrimaryPoliciesText() throws {
        let evaluator = try Self.evaluator(
            Self.policy("a", "<key>minVersion</key><string>3.0.0</string>")
                + Self.policy("b", "<key>minVersion</key><string>3</string><key>priority</key><integer>2</integer>")
                + Self.policy(
                    "c", "<key>minVersion</key><string>2.9</string><key>latestVersion</key><string>v3.0</string>"))
        let decision = try Self.decide(evaluator, ["version": "2.0"])
        #expect(decision.policy == "b")
        #expect(decision.targetVersion == "3")
        #expect(decision.reasons.map(\.policy) == ["a", "b", "c"])
    }

    /// Apps, platforms and channels are looked up once per request; past 16 names through a hash table.
    @Test(arguments: [3, 40])
    func manyAppsAndPlatforms(_ count: Int) throws {
        var policies = ""
        for index in 0..<count {
            policies += Self.policy(
                "p\(index)",
                "<key>minVersion</key><string>\(index + 1).0</string><key>platforms</key><array><string>os\(index)</string><string>ios</string></array>",
                app: "com.acme.app\(index)")
        }
        let evaluator = try Self.evaluator(policies)
        for index in [0, count - 1] {
            let match = try Self.decide(
                evaluator, ["app": "com.acme.app\(index)", "platform": "os\(index)", "version": "0.5"])
            #expect(match.policy == "p\(index)")
            #expect(match.reasons.map(\.code) == ["below_min_version"])
            let otherPlatform = try Self.decide(evaluator, ["app": "com.acme.app\(index)", "platform": "os\(count)"])
            #expect(otherPlatform.skipped.map(\.code) == ["platform_mismatch"])
        }
        #expect(try Self.decide(evaluator, ["app": "com.acme.unknown"]).skipped.isEmpty)
    }
}
