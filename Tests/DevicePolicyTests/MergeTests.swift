import CivilTime
import Testing

@testable import DevicePolicy

struct MergeTests {
    struct AppCase: Sendable, CustomStringConvertible {
        let name: String
        let bodies: [String]
        let app: String
        let decision: PolicyDecision
        let codes: [String]
        var description: String { name }
    }

    @Test(arguments: [
        AppCase(name: "no rules", bodies: [], app: "com.a.x", decision: .allow, codes: ["DEFAULT_ALLOW"]),
        AppCase(
            name: "absent allowlist in one payload never widens",
            bodies: [Fixture.strings("allowListedAppBundleIDs", ["com.a.x"]), ""],
            app: "com.a.y", decision: .deny, codes: ["APP_NOT_ALLOWLISTED"]),
        AppCase(
            name: "present but empty allows nothing", bodies: [Fixture.strings("allowListedAppBundleIDs", [])],
            app: "com.a.x", decision: .deny, codes: ["APP_NOT_ALLOWLISTED"]),
        AppCase(
            name: "allowlists intersect",
            bodies: [
                Fixture.strings("allowListedAppBundleIDs", ["com.a.x", "com.a.y"]),
                Fixture.strings("allowListedAppBundleIDs", ["com.a.y"]),
            ],
            app: "com.a.x", decision: .deny, codes: ["APP_NOT_ALLOWLISTED"]),
        AppCase(
            name: "in every allowlist",
            bodies: [
                Fixture.strings("allowListedAppBundleIDs", ["com.a.x", "com.a.y"]),
                Fixture.strings("allowListedAppBundleIDs", ["COM.A.Y"]),
            ],
            app: "com.a.y", decision: .allow, codes: ["APP_ALLOWLISTED", "APP_ALLOWLISTED"]),
        AppCase(
            name: "deny beats allow",
            bodies: [
                Fixture.strings("allowListedAppBundleIDs", ["com.a.x"])
                    + Fixture.strings("blockedAppBundleIDs", ["com.a.x"])
            ],
            app: "com.a.x", decision: .deny, codes: ["APP_DENYLISTED"]),
        AppCase(
            name: "empty deny list has no effect", bodies: [Fixture.strings("blockedAppBundleIDs", [])], app: "com.a.x",
            decision: .allow, codes: ["DEFAULT_ALLOW"]),
        AppCase(
            name: "deprecated alias is evaluated", bodies: [Fixture.strings("blacklistedAppBundleIDs", ["com.a.x"])],
            app: "com.a.x", decision: .deny, codes: ["APP_DENYLISTED"]),
        AppCase(
            name: "current key wins over alias",
            bodies: [
                Fixture.strings("blacklistedAppBundleIDs", ["com.a.x"])
                    + Fixture.strings("blockedAppBundleIDs", ["com.a.y"])
            ],
            app: "com.a.x", decision: .allow, codes: ["DEFAULT_ALLOW"]),
        AppCase(
            name: "safari off by any payload",
            bodies: ["<key>allowSafari</key><true/>", "<key>allowSafari</key><false/>"],
            app: "com.apple.mobilesafari", decision: .deny, codes: ["SAFARI_DISABLED"]),
        AppCase(
            name: "web clips follow safari", bodies: ["<key>allowSafari</key><false/>"], app: "com.apple.webapp",
            decision: .deny, codes: ["WEBCLIPS_DISABLED"]),
        AppCase(
            name: "app store off by UI installation",
            bodies: ["<key>allowUIAppInstallation</key><false/><key>allowAppInstallation</key><false/>"],
            app: "com.apple.AppStore", decision: .deny, codes: ["APP_STORE_DISABLED", "APP_STORE_DISABLED"]),
    ])
    func appRules(_ testCase: AppCase) {
        let documents = testCase.bodies.enumerated().map { index, body in
            ("p\(index).plist", Fixture.restrictions("com.t.p\(index)", body))
        }
        let answer = Fixture.ask(Fixture.engine(documents), .app, testCase.app)
        #expect(answer.decision == testCase.decision)
        #expect(answer.codes == testCase.codes)
    }

    @Test func kioskConflictIsIndeterminateInsideAndDenyOutside() {
        let engine = Fixture.engine([
            ("a.plist", Fixture.appLock("com.t.a", app: "com.a.one")),
            ("b.plist", Fixture.appLock("com.t.b", app: "com.a.two")),
        ])
        let inside = Fixture.ask(engine, .app, "com.a.two")
        #expect(inside.decision == .indeterminate)
        #expect(inside.codes == ["KIOSK_CONFLICT", "KIOSK_CONFLICT"])
        let outside = Fixture.ask(engine, .app, "com.a.three")
        #expect(outside.decision == .deny)
        #expect(outside.codes == ["KIOSK_LOCKED", "KIOSK_LOCKED"])
        let kiosk = Fixture.ask(engine, .kiosk)
        #expect(kiosk.decision == .indeterminate)
        #expect(
            kiosk.json.serialized(pretty: false).contains(
                #""locked":true,"app":null,"candidates":["com.a.one","com.a.two"],"options":null"#))
        #expect(kiosk.lintRules.contains("L_KIOSK_CONFLICT"))
        #expect(kiosk.lintRules.contains("L_MULTIPLE_APP_LOCK"))
    }

    @Test func sameAppLocksMergeOptions() throws {
        let engine = Fixture.engine([
            (
                "a.plist",
                Fixture.appLock(
                    "com.t.a", app: "com.a.kiosk", options: "<key>DisableAutoLock</key><true/>",
                    userEnabled: "<key>Zoom</key><true/><key>VoiceOver</key><true/>")
            ),
            (
                "b.plist",
                Fixture.appLock(
                    "com.t.b", app: "COM.A.KIOSK", options: "<key>EnableVoiceOver</key><true/>",
                    userEnabled: "<key>Zoom</key><true/><key>VoiceOver</key><true/><key>InvertColors</key><true/>")
            ),
        ])
        let answer = Fixture.ask(engine, .kiosk)
        #expect(answer.decision == .ok)
        let json = answer.json.serialized(pretty: false)
        #expect(json.contains(#""app":"com.a.kiosk""#))
        #expect(json.contains(#""DisableAutoLock":true"#))
        #expect(json.contains(#""EnableVoiceOver":true"#))
        // VoiceOver is forced by b, so its toggle is reported false; InvertColors only b allows.
        #expect(json.contains(#""userEnabledOptions":{"VoiceOver":false,"Zoom":true,"InvertColors":false"#))
        #expect(answer.lintRules.isSuperset(of: ["L_KIOSK_OPTION_OVERLAP", "L_CASE_VARIANT", "L_MULTIPLE_APP_LOCK"]))
        #expect(!answer.lintRules.contains("L_KIOSK_CONFLICT"))
    }

    @Test func kioskAppBlockedIsALintError() {
        let engine = Fixture.engine([
            ("a.plist", Fixture.appLock("com.t.a", app: "com.a.kiosk")),
            ("r.plist", Fixture.restrictions("com.t.r", Fixture.strings("blockedAppBundleIDs", ["com.a.kiosk"]))),
        ])
        let answer = Fixture.ask(engine, .app, "com.a.kiosk")
        #expect(answer.decision == .deny)
        #expect(answer.codes == ["APP_DENYLISTED"])
        #expect(
            answer.lints.contains {
                $0.diagnostic.code.rule == "L_KIOSK_APP_BLOCKED" && $0.diagnostic.severity == .error
            })
    }

    @Test func asamListsIntersect() {
        let engine = Fixture.engine([
            (
                "a.plist",
                Fixture.restrictions(
                    "com.t.a", Fixture.strings("autonomousSingleAppModePermittedAppIDs", ["com.a.x", "com.a.y"]))
            ),
            (
                "b.plist",
                Fixture.restrictions("com.t.b", Fixture.strings("autonomousSingleAppModePermittedAppIDs", ["com.a.y"]))
            ),
        ])
        #expect(Fixture.ask(engine, .asam, "com.a.y").codes == ["ASAM_PERMITTED", "ASAM_PERMITTED"])
        #expect(Fixture.ask(engine, .asam, "com.a.x").codes == ["ASAM_NOT_PERMITTED"])
        #expect(Fixture.ask(Fixture.engine([]), .asam, "com.a.x").codes == ["ASAM_DEFAULT_DENY"])
    }

    @Test func restrictionsMergeAndCiteWinners() {
        let engine = Fixture.engine([
            (
                "a.plist",
                Fixture.restrictions("com.t.a", "<key>allowSafari</key><true/><key>forceWiFiWhitelisting</key><true/>")
            ),
            (
                "b.plist",
                Fixture.restrictions(
                    "com.t.b",
                    "<key>allowSafari</key><false/>"
                        + Fixture.strings("allowListedAppBundleIDs", ["com.a.X", "com.a.y"]))
            ),
            ("c.plist", Fixture.restrictions("com.t.c", Fixture.strings("allowListedAppBundleIDs", ["com.a.x"]))),
        ])
        let safari = Fixture.ask(engine, .restriction, "allowSafari")
        #expect(safari.json.serialized(pretty: false).contains(#""key":"allowSafari","value":false"#))
        #expect(safari.reasons.map { $0.payload?.profile } == ["com.t.b"])
        let force = Fixture.ask(engine, .restriction, "forceWiFiWhitelisting")
        #expect(force.json.serialized(pretty: false).contains(#""key":"forceWiFiToAllowedNetworksOnly","value":true"#))
        let list = Fixture.ask(engine, .restriction, "allowListedAppBundleIDs")
        #expect(list.json.serialized(pretty: false).contains(#""value":["com.a.X"]"#))
        let unset = Fixture.ask(Fixture.engine([]), .restriction, "allowListedAppBundleIDs")
        #expect(unset.json.serialized(pretty: false).contains(#""value":null,"contributors":[]"#))
        #expect(unset.codes == ["RESTRICTION_DEFAULT"])
        #expect(Fixture.ask(engine, .restriction, "allowCamera").errorExit == 65)
    }

    @Test func answersDoNotDependOnDocumentOrder() {
        let documents: [(String, [UInt8])] = [
            ("a.plist", Fixture.appLock("com.t.a", app: "com.a.one")),
            ("b.plist", Fixture.appLock("com.t.b", app: "com.a.two")),
            (
                "r.plist",
                Fixture.restrictions(
                    "com.t.r",
                    Fixture.strings("blockedAppBundleIDs", ["com.a.two", "com.a.three"])
                        + "<key>allowSafari</key><false/>")
            ),
            ("s.plist", Fixture.restrictions("com.t.s", Fixture.strings("allowListedAppBundleIDs", ["com.a.two"]))),
            (
                "f.plist",
                Fixture.profile(
                    "com.t.f",
                    [
                        (
                            "com.apple.webcontent-filter", "com.t.f.w",
                            Fixture.strings("DenyListURLs", ["example.com", "*.example.net"])
                        )
                    ])
            ),
        ]
        let queries: [(PolicyQuery.Kind, String?)] = [
            (.app, "com.a.two"), (.app, "com.a.three"), (.kiosk, nil), (.url, "https://www.example.com/"),
            (.restriction, "blockedAppBundleIDs"), (.asam, "com.a.one"),
        ]
        let permutations = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 0, 4, 1, 3], [1, 4, 0, 3, 2]]
        for (kind, argument) in queries {
            let answers = permutations.map { order in
                Fixture.ask(Fixture.engine(order.map { documents[$0] }), kind, argument).json.serialized()
            }
            #expect(Set(answers).count == 1, "\(kind) \(argument ?? "")")
        }
    }

    @Test func laterDocumentReplacesSameIdentifier() {
        let engine = Fixture.engine([
            ("old.plist", Fixture.restrictions("com.t.r", Fixture.strings("blockedAppBundleIDs", ["com.a.x"]))),
            ("new.plist", Fixture.restrictions("com.t.r", Fixture.strings("blockedAppBundleIDs", ["com.a.y"]))),
        ])
        #expect(Fixture.ask(engine, .app, "com.a.x").decision == .allow)
        #expect(Fixture.ask(engine, .app, "com.a.y").decision == .deny)
        let answer = Fixture.ask(engine, .app, "com.a.y")
        #expect(answer.profiles.map(\.status) == [.replaced, .loaded])
        #expect(answer.lintRules.contains("L_PROFILE_REPLACED"))
    }
}
