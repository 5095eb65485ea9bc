import Testing

@testable import DevicePolicy

struct LintTests {
    struct Case: Sendable, CustomStringConvertible {
        let rule: String
        let documents: [[UInt8]]
        var description: String { rule }
    }

    static func payload(_ type: String, _ body: String, id: String = "com.t.l") -> [UInt8] {
        Fixture.profile(id, [(type, id + ".p", body)])
    }

    static let r = "com.apple.applicationaccess"
    static let f = "com.apple.webcontent-filter"
    static let w = "com.apple.wifi.managed"
    static let n = "io.mdmconf.wifi-restrictions"
    static let v = "com.apple.vpn.managed"
    static let alwaysOn = "<key>VPNType</key><string>AlwaysOn</string><key>AlwaysOn</key><dict/>"

    @Test(arguments: [
        Case(rule: "L_PROFILE_REPLACED", documents: [payload(r, ""), payload(r, "")]),
        Case(rule: "L_UNKNOWN_PAYLOAD_TYPE", documents: [payload("com.apple.dock", "")]),
        Case(rule: "L_UNKNOWN_KEY", documents: [payload(r, "<key>allowSafary</key><false/>")]),
        Case(rule: "L_DEPRECATED_KEY", documents: [payload(r, Fixture.strings("whitelistedAppBundleIDs", ["a.b"]))]),
        Case(
            rule: "L_DEPRECATED_AND_CURRENT",
            documents: [
                payload(f, Fixture.strings("BlacklistedURLs", ["a.b"]) + Fixture.strings("DenyListURLs", ["a.c"]))
            ]),
        Case(
            rule: "L_MISSING_UUID",
            documents: [
                Array(
                    "<plist><dict><key>PayloadType</key><string>com.apple.applicationaccess</string><key>PayloadIdentifier</key><string>x</string></dict></plist>"
                        .utf8)
            ]),
        Case(rule: "L_EMPTY_LIST", documents: [payload(r, Fixture.strings("allowListedAppBundleIDs", []))]),
        Case(
            rule: "L_CASE_VARIANT",
            documents: [payload(r, Fixture.strings("blockedAppBundleIDs", ["com.a.X", "com.a.x"]))]),
        Case(
            rule: "L_ALLOW_DENY_OVERLAP",
            documents: [
                payload(
                    r,
                    Fixture.strings("blockedAppBundleIDs", ["com.a.x"])
                        + Fixture.strings("allowListedAppBundleIDs", ["com.a.x"]))
            ]),
        Case(rule: "L_SCHEDULE_NEVER", documents: [payload(r, "<key>MDMConfSchedule</key><array/>")]),
        Case(
            rule: "L_KIOSK_CONFLICT",
            documents: [Fixture.appLock("com.t.a", app: "a.one"), Fixture.appLock("com.t.b", app: "a.two")]),
        Case(
            rule: "L_MULTIPLE_APP_LOCK",
            documents: [Fixture.appLock("com.t.a", app: "a.one"), Fixture.appLock("com.t.b", app: "a.one")]),
        Case(
            rule: "L_KIOSK_OPTION_OVERLAP",
            documents: [
                Fixture.appLock(
                    "com.t.a", app: "a.one", options: "<key>EnableZoom</key><true/>",
                    userEnabled: "<key>Zoom</key><true/>")
            ]),
        Case(
            rule: "L_KIOSK_TOUCH_CONFLICT",
            documents: [
                Fixture.appLock(
                    "com.t.a", app: "a.one", options: "<key>DisableTouch</key><true/><key>EnableVoiceOver</key><true/>")
            ]),
        Case(
            rule: "L_KIOSK_APP_BLOCKED",
            documents: [
                Fixture.appLock("com.t.a", app: "a.one"),
                payload(r, Fixture.strings("allowListedAppBundleIDs", ["a.two"])),
            ]),
        Case(
            rule: "L_KEY_IGNORED_FOR_FILTERTYPE",
            documents: [
                payload(f, "<key>FilterType</key><string>Plugin</string>" + Fixture.strings("DenyListURLs", ["a.b"]))
            ]),
        Case(
            rule: "L_PERMITTED_WITHOUT_AUTOFILTER", documents: [payload(f, Fixture.strings("PermittedURLs", ["a.b"]))]),
        Case(rule: "L_SCHEME_SPECIFIC_DENY", documents: [payload(f, Fixture.strings("DenyListURLs", ["https://a.b"]))]),
        Case(
            rule: "L_DENY_ALL_NO_EXCEPTIONS",
            documents: [
                payload(
                    f,
                    Fixture.strings("DenyListURLs", ["*"]) + "<key>AutoFilterEnabled</key><true/>"
                        + Fixture.strings("PermittedURLs", ["a.b"]))
            ]),
        Case(rule: "L_WWW_ONLY_PATTERN", documents: [payload(f, Fixture.strings("DenyListURLs", ["www.a.b"]))]),
        Case(rule: "L_PATH_PREFIX", documents: [payload(f, Fixture.strings("DenyListURLs", ["a.b/x"]))]),
        Case(rule: "L_APPLE_DIVERGENCE", documents: [payload(f, Fixture.strings("DenyListURLs", ["a.b:8080"]))]),
        Case(rule: "L_SSID_WHITESPACE", documents: [payload(n, Fixture.strings("DeniedSSIDs", ["Corp "]))]),
        Case(rule: "L_SSID_WILDCARD_LITERAL", documents: [payload(n, Fixture.strings("AllowedSSIDs", ["Corp*"]))]),
        Case(rule: "L_SSID_NOT_NFC", documents: [payload(w, "<key>SSID_STR</key><string>Cafe\u{301}</string>")]),
        Case(
            rule: "L_WIFI_CONFIGURED_BUT_DENIED",
            documents: [
                payload(w, "<key>SSID_STR</key><string>Corp</string>", id: "com.t.w"),
                payload(n, Fixture.strings("DeniedSSIDs", ["Corp"])),
            ]),
        Case(
            rule: "L_PASSPOINT_NOT_EVALUATED",
            documents: [payload(w, "<key>DomainName</key><string>hotspot.example</string>")]),
        Case(
            rule: "L_WIFI_NO_ALLOWED_NETWORKS",
            documents: [payload(r, "<key>forceWiFiToAllowedNetworksOnly</key><true/>")]),
        Case(
            rule: "L_WIFI_DUPLICATE_SSID",
            documents: [
                payload(w, "<key>SSID_STR</key><string>Corp</string>", id: "com.t.a"),
                payload(w, "<key>SSID_STR</key><string>Corp</string><key>AutoJoin</key><false/>", id: "com.t.b"),
            ]),
        Case(
            rule: "L_MULTIPLE_ALWAYS_ON",
            documents: [payload(v, alwaysOn, id: "com.t.a"), payload(v, alwaysOn, id: "com.t.b")]),
        Case(
            rule: "L_REMOVAL_NOT_EVALUATED",
            documents: [payload(r, "<key>RemovalDate</key><date>2030-01-01T00:00:00Z</date>")]),
    ])
    func lintIsRaised(_ testCase: Case) throws {
        let engine = Fixture.engine(testCase.documents.enumerated().map { ("d\($0.offset).plist", $0.element) })
        #expect(engine.profileSet.isUsable, "\(engine.profileSet.diagnostics.map(\.diagnostic.message))")
        let lint = try #require(
            engine.lints.first { $0.diagnostic.code.rule == testCase.rule },
            "\(engine.lints.map(\.diagnostic.code.rule))")
        let expected = try #require(PolicyLint.all.first { $0.code.rule == testCase.rule })
        #expect(lint.diagnostic.code == expected.code)
        #expect(lint.diagnostic.file != nil)
        if testCase.rule != "L_PROFILE_REPLACED" { #expect(lint.diagnostic.line != nil) }
    }

    @Test func everyLintHasACaseAndAUniqueCode() {
        #expect(PolicyLint.all.count == 31)
        #expect(Set(PolicyLint.all.map(\.code.code)).count == 31)
        #expect(Set(PolicyLint.all.compactMap(\.code.rule)).count == 31)
    }

    @Test func kioskConflictIsAWarningWhenEveryLockIsScheduled() {
        let scheduled =
            "<key>MDMConfSchedule</key><array><dict>" + Fixture.strings("Days", ["Mon"])
            + "<key>Start</key><string>08:00</string><key>End</key><string>12:00</string><key>TimeZone</key><string>UTC</string></dict></array>"
        let lock = { (id: String, app: String) in
            Fixture.profile(
                id,
                [
                    (
                        "com.apple.app.lock", id + ".l",
                        "<key>App</key><dict><key>Identifier</key><string>\(app)</string></dict>" + scheduled
                    )
                ])
        }
        let engine = Fixture.engine([("a.plist", lock("com.t.a", "a.one")), ("b.plist", lock("com.t.b", "a.two"))])
        #expect(
            engine.lints.filter { $0.diagnostic.code.rule == "L_KIOSK_CONFLICT" }.allSatisfy {
                $0.diagnostic.severity == .warning
            })
    }
}
