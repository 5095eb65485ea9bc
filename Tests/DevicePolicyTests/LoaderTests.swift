import CivilTime
import Testing

@testable import DevicePolicy

struct LoaderTests {
    static func schedule(_ windows: String) -> String { "<key>MDMConfSchedule</key><array>\(windows)</array>" }

    static func window(_ days: [String], _ start: String, _ end: String, _ zone: String) -> String {
        "<dict>" + Fixture.strings("Days", days)
            + "<key>Start</key><string>\(start)</string><key>End</key><string>\(end)</string>"
            + "<key>TimeZone</key><string>\(zone)</string></dict>"
    }

    struct ScheduleCase: Sendable, CustomStringConvertible {
        let name: String
        let window: String
        let at: String
        let active: Bool
        var description: String { name }
    }

    @Test(arguments: [
        ScheduleCase(
            name: "inside", window: window(["Mon"], "08:00", "17:00", "UTC"), at: "2025-03-10T09:00:00Z", active: true),
        ScheduleCase(
            name: "end exclusive", window: window(["Mon"], "08:00", "09:00", "UTC"), at: "2025-03-10T09:00:00Z",
            active: false),
        ScheduleCase(
            name: "start inclusive", window: window(["Mon"], "09:00", "10:00", "UTC"), at: "2025-03-10T09:00:00Z",
            active: true),
        ScheduleCase(
            name: "other day", window: window(["Tue"], "08:00", "17:00", "UTC"), at: "2025-03-10T09:00:00Z",
            active: false),
        ScheduleCase(
            name: "zone shifts the day", window: window(["Sun"], "20:00", "24:00", "America/Los_Angeles"),
            at: "2025-03-10T05:00:00Z", active: true),
        ScheduleCase(
            name: "overnight, start day", window: window(["Fri"], "22:00", "06:00", "UTC"), at: "2025-03-14T23:00:00Z",
            active: true),
        ScheduleCase(
            name: "overnight, next morning", window: window(["Fri"], "22:00", "06:00", "UTC"),
            at: "2025-03-15T05:59:00Z", active: true),
        ScheduleCase(
            name: "overnight, not the morning of the start day", window: window(["Fri"], "22:00", "06:00", "UTC"),
            at: "2025-03-14T05:00:00Z", active: false),
        ScheduleCase(
            name: "overnight ends", window: window(["Fri"], "22:00", "06:00", "UTC"), at: "2025-03-15T06:00:00Z",
            active: false),
        // Europe/Berlin springs forward 2025-03-30 02:00 → 03:00: 02:xx never occurs.
        ScheduleCase(
            name: "spring gap never covered, before", window: window(["Sun"], "02:00", "03:00", "Europe/Berlin"),
            at: "2025-03-30T00:59:59Z", active: false),
        ScheduleCase(
            name: "spring gap never covered, after", window: window(["Sun"], "02:00", "03:00", "Europe/Berlin"),
            at: "2025-03-30T01:00:00Z", active: false),
        ScheduleCase(
            name: "spring forward, 03:00 CEST", window: window(["Sun"], "03:00", "04:00", "Europe/Berlin"),
            at: "2025-03-30T01:00:00Z", active: true),
        // Falls back 2025-10-26 03:00 → 02:00: 02:30 occurs twice and is covered both times.
        ScheduleCase(
            name: "fall overlap, first 02:30", window: window(["Sun"], "02:00", "03:00", "Europe/Berlin"),
            at: "2025-10-26T00:30:00Z", active: true),
        ScheduleCase(
            name: "fall overlap, second 02:30", window: window(["Sun"], "02:00", "03:00", "Europe/Berlin"),
            at: "2025-10-26T01:30:00Z", active: true),
        ScheduleCase(
            name: "fall overlap, after", window: window(["Sun"], "02:00", "03:00", "Europe/Berlin"),
            at: "2025-10-26T02:00:00Z", active: false),
        ScheduleCase(
            name: "New York DST day", window: window(["Sun"], "01:00", "04:00", "America/New_York"),
            at: "2025-03-09T07:30:00Z", active: true),
    ])
    func schedules(_ testCase: ScheduleCase) throws {
        let at = try #require(PolicyQuery.instant(rfc3339: testCase.at))
        let engine = Fixture.engine([
            (
                "s.plist",
                Fixture.restrictions("com.t.s", "<key>allowSafari</key><false/>" + Self.schedule(testCase.window))
            )
        ])
        let answer = Fixture.ask(engine, .app, "com.apple.mobilesafari", at: at)
        #expect(answer.decision == (testCase.active ? .deny : .allow))
        #expect(answer.inactive.isEmpty == testCase.active)
    }

    @Test func emptyScheduleIsNeverActive() {
        let engine = Fixture.engine([
            ("s.plist", Fixture.restrictions("com.t.s", "<key>allowSafari</key><false/>" + Self.schedule("")))
        ])
        let answer = Fixture.ask(engine, .app, "com.apple.mobilesafari")
        #expect(answer.decision == .allow)
        #expect(answer.lintRules.contains("L_SCHEDULE_NEVER"))
    }

    struct ErrorCase: Sendable, CustomStringConvertible {
        let name: String
        let document: String
        let code: String
        let keyPath: String?
        var description: String { name }
    }

    static func payload(_ type: String, _ body: String) -> String {
        String(decoding: Fixture.profile("com.t.e", [(type, "com.t.e.p", body)]), as: UTF8.self)
    }

    @Test(arguments: [
        ErrorCase(name: "root array", document: "<plist><array/></plist>", code: "MC5001", keyPath: nil),
        ErrorCase(
            name: "no identifier",
            document: "<plist><dict><key>PayloadType</key><string>Configuration</string></dict></plist>",
            code: "MC5002", keyPath: nil),
        ErrorCase(
            name: "string for bool",
            document: payload("com.apple.applicationaccess", "<key>allowSafari</key><string>false</string>"),
            code: "MC5003", keyPath: "allowSafari"),
        ErrorCase(
            name: "integer for bool",
            document: payload("com.apple.applicationaccess", "<key>allowSafari</key><integer>0</integer>"),
            code: "MC5003", keyPath: "allowSafari"),
        ErrorCase(
            name: "true for 0/1",
            document: payload(
                "com.apple.vpn.managed",
                "<key>VPNType</key><string>IKEv2</string><key>IKEv2</key><dict><key>OnDemandEnabled</key><true/></dict>"
            ), code: "MC5003", keyPath: "IKEv2.OnDemandEnabled"),
        ErrorCase(
            name: "0/1 out of range",
            document: payload(
                "com.apple.vpn.managed",
                "<key>VPNType</key><string>IKEv2</string><key>IKEv2</key><dict><key>IncludeAllNetworks</key><integer>2</integer></dict>"
            ), code: "MC5004", keyPath: "IKEv2.IncludeAllNetworks"),
        ErrorCase(
            name: "VPNType enum",
            document: payload("com.apple.vpn.managed", "<key>VPNType</key><string>WireGuard</string>"), code: "MC5004",
            keyPath: "VPNType"),
        ErrorCase(
            name: "AlwaysOn without dict",
            document: payload("com.apple.vpn.managed", "<key>VPNType</key><string>AlwaysOn</string>"), code: "MC5002",
            keyPath: nil),
        ErrorCase(
            name: "FilterType enum",
            document: payload("com.apple.webcontent-filter", "<key>FilterType</key><string>Custom</string>"),
            code: "MC5004", keyPath: "FilterType"),
        ErrorCase(
            name: "wildcard bundle id",
            document: payload("com.apple.applicationaccess", Fixture.strings("blockedAppBundleIDs", ["com.a.*"])),
            code: "MC5005", keyPath: "blockedAppBundleIDs[0]"),
        ErrorCase(
            name: "underscore bundle id",
            document: payload(
                "com.apple.app.lock", "<key>App</key><dict><key>Identifier</key><string>com.a_b</string></dict>"),
            code: "MC5005", keyPath: "App.Identifier"),
        ErrorCase(name: "lock without app", document: payload("com.apple.app.lock", ""), code: "MC5002", keyPath: nil),
        ErrorCase(
            name: "long SSID",
            document: payload(
                "com.apple.wifi.managed", "<key>SSID_STR</key><string>\(String(repeating: "x", count: 33))</string>"),
            code: "MC5006", keyPath: "SSID_STR"),
        ErrorCase(
            name: "hex SSID separators",
            document: payload("io.mdmconf.wifi-restrictions", Fixture.strings("DeniedHexSSIDs", ["41:42"])),
            code: "MC5006", keyPath: "DeniedHexSSIDs[0]"),
        ErrorCase(
            name: "no SSID", document: payload("com.apple.wifi.managed", "<key>AutoJoin</key><true/>"), code: "MC5002",
            keyPath: nil),
        ErrorCase(
            name: "bad URL pattern",
            document: payload("com.apple.webcontent-filter", Fixture.strings("DenyListURLs", ["example.com?x=1"])),
            code: "MC5007", keyPath: "DenyListURLs[0]"),
        ErrorCase(
            name: "bookmark without title",
            document: payload(
                "com.apple.webcontent-filter",
                "<key>AllowListBookmarks</key><array><dict><key>URL</key><string>a.example</string></dict></array>"),
            code: "MC5002", keyPath: "AllowListBookmarks[0]"),
        ErrorCase(
            name: "schedule day",
            document: payload("com.apple.applicationaccess", schedule(window(["Monday"], "08:00", "09:00", "UTC"))),
            code: "MC5008", keyPath: "MDMConfSchedule[0].Days[0]"),
        ErrorCase(
            name: "schedule time",
            document: payload("com.apple.applicationaccess", schedule(window(["Mon"], "8:00", "09:00", "UTC"))),
            code: "MC5008", keyPath: "MDMConfSchedule[0].Start"),
        ErrorCase(
            name: "schedule start equals end",
            document: payload("com.apple.applicationaccess", schedule(window(["Mon"], "08:00", "08:00", "UTC"))),
            code: "MC5008", keyPath: "MDMConfSchedule[0].End"),
        ErrorCase(
            name: "schedule 24:00 start",
            document: payload("com.apple.applicationaccess", schedule(window(["Mon"], "24:00", "08:00", "UTC"))),
            code: "MC5008", keyPath: "MDMConfSchedule[0].Start"),
        ErrorCase(
            name: "schedule zone",
            document: payload(
                "com.apple.applicationaccess", schedule(window(["Mon"], "08:00", "09:00", "Mars/Olympus"))),
            code: "MC5009", keyPath: "MDMConfSchedule[0].TimeZone"),
        ErrorCase(
            name: "duplicate payload id",
            document: String(
                decoding: Fixture.profile(
                    "com.t.d",
                    [
                        ("com.apple.applicationaccess", "com.t.d.x", ""),
                        (
                            "com.apple.app.lock", "com.t.d.x",
                            "<key>App</key><dict><key>Identifier</key><string>a.b</string></dict>"
                        ),
                    ]), as: UTF8.self), code: "MC5010", keyPath: "PayloadContent[1]"),
        ErrorCase(
            name: "encrypted",
            document:
                "<plist><dict><key>PayloadType</key><string>Configuration</string><key>PayloadIdentifier</key><string>x</string><key>EncryptedPayloadContent</key><data>AAAA</data></dict></plist>",
            code: "MC5012", keyPath: "EncryptedPayloadContent"),
        ErrorCase(
            name: "duplicate key",
            document:
                "<plist><dict><key>PayloadType</key><string>Configuration</string><key>PayloadType</key><string>Configuration</string></dict></plist>",
            code: "MC1013", keyPath: nil),
    ])
    func loadErrors(_ testCase: ErrorCase) {
        let document = ProfileLoader().load(Array(testCase.document.utf8), file: "e.plist")
        #expect(!document.isValid)
        let match = document.diagnostics.first { $0.diagnostic.code.code == testCase.code }
        #expect(match != nil, "\(document.diagnostics.map(\.diagnostic.message))")
        if testCase.code != "MC1013" { #expect(match?.diagnostic.keyPath == testCase.keyPath) }
        let engine = PolicyEngine(profileSet: ProfileSet(documents: [document], skipInvalid: false))
        #expect(Fixture.ask(engine, .kiosk).exitCode == 78)
        let skipping = PolicyEngine(profileSet: ProfileSet(documents: [document], skipInvalid: true))
        let answer = Fixture.ask(skipping, .kiosk)
        #expect(answer.exitCode == 0)
        #expect(answer.diagnosticCodes.contains("MC5011"))
    }

    @Test func signedProfilesAreRefused() {
        let document = ProfileLoader().load([0x30, 0x82, 0x01, 0x00, 0x06, 0x09], file: "signed.mobileconfig")
        #expect(document.diagnostics.map(\.diagnostic.code.code) == ["MC5012"])
        #expect(document.diagnostics.first?.diagnostic.hint?.contains("openssl smime") == true)
    }

    @Test func bareDictIsOneProfile() {
        let bare = """
            <plist><dict><key>PayloadType</key><string>com.apple.applicationaccess</string>
            <key>PayloadIdentifier</key><string>com.t.bare</string><key>allowSafari</key><false/></dict></plist>
            """
        let document = ProfileLoader().load(Array(bare.utf8), file: "bare.plist")
        #expect(document.identifier == "com.t.bare")
        #expect(document.payloads.count == 1)
        let answer = Fixture.ask(
            PolicyEngine(profileSet: ProfileSet(documents: [document], skipInvalid: false)), .app,
            "com.apple.mobilesafari")
        #expect(answer.codes == ["SAFARI_DISABLED"])
        #expect(answer.reasons.first?.payload?.profile == "com.t.bare")
    }

    @Test func queryErrors() {
        let engine = Fixture.engine([])
        #expect(Fixture.ask(engine, .app, "com.a b").diagnosticCodes == ["MC5101"])
        #expect(Fixture.ask(engine, .app, "*").diagnosticCodes == ["MC5101"])
        #expect(Fixture.ask(engine, .url, "https://").diagnosticCodes == ["MC5102"])
        #expect(Fixture.ask(engine, .url, "ftp://a").diagnosticCodes == ["MC5103"])
        #expect(Fixture.ask(engine, .wifi, "").diagnosticCodes == ["MC5104"])
        #expect(Fixture.ask(engine, .restriction, "allowsafari").diagnosticCodes == ["MC5106"])
        #expect(PolicyQuery.instant(rfc3339: "2025-03-10T09:00:00") == nil)
        #expect(PolicyQuery.instant(rfc3339: "2025-03-10 09:00:00Z") == nil)
        #expect(PolicyQuery.instant(rfc3339: " 2025-03-10T09:00:00Z") == nil)
        #expect(PolicyQuery.instant(rfc3339: "2025-03-10T09:00:00.5+01:00") != nil)
    }
}
