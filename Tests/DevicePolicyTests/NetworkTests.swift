import CivilTime
import Testing

@testable import DevicePolicy

struct NetworkTests {
    static func filter(_ id: String, _ body: String) -> (String, [UInt8]) {
        ("\(id).plist", Fixture.profile(id, [("com.apple.webcontent-filter", id + ".w", body)]))
    }

    static func bookmarks(_ urls: [String]) -> String {
        "<key>AllowListBookmarks</key><array>"
            + urls.map { "<dict><key>URL</key><string>\($0)</string><key>Title</key><string>t</string></dict>" }
            .joined()
            + "</array>"
    }

    struct URLCase: Sendable, CustomStringConvertible {
        let name: String
        let filters: [String]
        let url: String
        let decision: PolicyDecision
        let codes: [String]
        var description: String { name }
    }

    @Test(arguments: [
        URLCase(name: "no filter", filters: [], url: "https://a.example/", decision: .allow, codes: ["DEFAULT_ALLOW"]),
        URLCase(
            name: "deny list union",
            filters: [Fixture.strings("DenyListURLs", ["a.example"]), Fixture.strings("DenyListURLs", ["b.example"])],
            url: "https://www.b.example/", decision: .deny, codes: ["URL_DENYLISTED"]),
        URLCase(
            name: "deny beats bookmark",
            filters: [Fixture.strings("DenyListURLs", ["a.example"]) + bookmarks(["a.example"])],
            url: "https://a.example/", decision: .deny, codes: ["URL_DENYLISTED"]),
        URLCase(
            name: "star denies everything even with bookmarks",
            filters: [Fixture.strings("DenyListURLs", ["*"]) + bookmarks(["a.example"])],
            url: "https://a.example/", decision: .deny, codes: ["URL_DENYLISTED"]),
        URLCase(
            name: "bookmarks of every payload",
            filters: [bookmarks(["a.example", "b.example"]), bookmarks(["b.example"])],
            url: "https://a.example/", decision: .deny, codes: ["URL_NOT_ALLOWLISTED"]),
        URLCase(
            name: "empty bookmarks allow nothing", filters: [bookmarks([])], url: "https://a.example/", decision: .deny,
            codes: ["URL_NOT_ALLOWLISTED"]),
        URLCase(
            name: "bookmark match", filters: [bookmarks(["https://a.example/app/"])], url: "https://a.example/app/x",
            decision: .allow, codes: ["URL_ALLOWLISTED"]),
        URLCase(
            name: "plugin decides at run time",
            filters: ["<key>FilterType</key><string>Plugin</string><key>PluginBundleID</key><string>com.v.f</string>"],
            url: "https://a.example/", decision: .conditional, codes: ["PLUGIN_FILTER_ACTIVE"]),
        URLCase(
            name: "auto filter applies",
            filters: ["<key>AutoFilterEnabled</key><true/>" + Fixture.strings("PermittedURLs", ["b.example"])],
            url: "https://a.example/", decision: .conditional, codes: ["AUTO_FILTER_APPLIES"]),
        URLCase(
            name: "permitted bypasses the auto filter",
            filters: ["<key>AutoFilterEnabled</key><true/>" + Fixture.strings("PermittedURLs", ["a.example"])],
            url: "https://a.example/", decision: .allow, codes: ["PERMITTED_BYPASSES_AUTOFILTER"]),
        URLCase(
            name: "auto filter payload without PermittedURLs contributes an empty list",
            filters: [
                "<key>AutoFilterEnabled</key><true/>" + Fixture.strings("PermittedURLs", ["a.example"]),
                "<key>AutoFilterEnabled</key><true/>",
            ],
            url: "https://a.example/", decision: .conditional, codes: ["AUTO_FILTER_APPLIES"]),
        URLCase(
            name: "PermittedURLs ignored without auto filter",
            filters: [Fixture.strings("PermittedURLs", ["a.example"])],
            url: "https://a.example/", decision: .allow, codes: ["DEFAULT_ALLOW"]),
    ])
    func urlDecisions(_ testCase: URLCase) {
        let engine = Fixture.engine(
            testCase.filters.enumerated().map { Self.filter("com.t.f\($0.offset)", $0.element) })
        let answer = Fixture.ask(engine, .url, testCase.url)
        #expect(answer.decision == testCase.decision)
        #expect(answer.codes == testCase.codes)
    }

    static let wifi: [(String, [UInt8])] = [
        (
            "w.plist",
            Fixture.profile(
                "com.t.w",
                [
                    ("com.apple.wifi.managed", "com.t.w.corp", "<key>SSID_STR</key><string>Corp</string>"),
                    (
                        "com.apple.wifi.managed", "com.t.w.hidden",
                        "<key>SSID_STR</key><string>Lab</string><key>HIDDEN_NETWORK</key><true/>"
                    ),
                    (
                        "io.mdmconf.wifi-restrictions", "com.t.w.n",
                        Fixture.strings("AllowedSSIDs", ["Corp", "Guest", "Caf\u{E9}"])
                            + Fixture.strings("DeniedSSIDs", ["Corp"])
                            + Fixture.strings("DeniedHexSSIDs", ["ff00"])
                    ),
                ])
        ),
        ("r.plist", Fixture.restrictions("com.t.r", "<key>forceWiFiToAllowedNetworksOnly</key><true/>")),
    ]

    @Test func wifiRules() {
        let engine = Fixture.engine(Self.wifi)
        let corp = Fixture.ask(engine, .wifi, "Corp")
        #expect(corp.decision == .deny)
        #expect(corp.codes == ["SSID_DENYLISTED"])  // profile networks are not exempt
        #expect(corp.lintRules.contains("L_WIFI_CONFIGURED_BUT_DENIED"))
        let guest = Fixture.ask(engine, .wifi, "Guest")
        #expect(guest.codes == ["NOT_PROFILE_NETWORK"])
        let lab = Fixture.ask(engine, .wifi, "Lab", hidden: true)
        #expect(lab.codes == ["SSID_NOT_ALLOWLISTED"])
        #expect(Fixture.ask(engine, .wifi, "corp").codes.contains("SSID_NOT_ALLOWLISTED"))
        let nfd = Fixture.ask(engine, .wifi, "Cafe\u{301}")
        #expect(nfd.codes.contains("SSID_NOT_ALLOWLISTED"))
        #expect(Fixture.ask(engine, .wifi, ssidHex: "FF00").codes.contains("SSID_DENYLISTED"))
        #expect(Fixture.ask(engine, .wifi, ssidHex: "ff0").errorExit == 65)
        #expect(Fixture.ask(engine, .wifi, String(repeating: "x", count: 33)).errorExit == 65)
        // The SSID's bytes as typed, not normalised: "Cafe" then U+0301 COMBINING ACUTE ACCENT (UTF-8 CC 81).
        #expect(nfd.query.ssidHex == "43616665cc81")
    }

    @Test func hiddenNetworkAdvisory() {
        let engine = Fixture.engine([
            (
                "w.plist",
                Fixture.profile(
                    "com.t.w", [("com.apple.wifi.managed", "com.t.w.a", "<key>SSID_STR</key><string>Lab</string>")])
            )
        ])
        let answer = Fixture.ask(engine, .wifi, "Lab", hidden: true)
        #expect(answer.decision == .allow)
        #expect(answer.codes == ["PROFILE_NETWORK"])
        #expect(answer.advisories.map(\.code) == ["ADV_HIDDEN_NOT_CONFIGURED"])
    }

    struct VPNCase: Sendable, CustomStringConvertible {
        let name: String
        let body: String
        let decision: PolicyDecision
        let json: String
        let code: String
        var description: String { name }
    }

    @Test(arguments: [
        VPNCase(
            name: "always-on enforced", body: "<key>VPNType</key><string>AlwaysOn</string><key>AlwaysOn</key><dict/>",
            decision: .ok,
            json: #""required":true,"mode":"always-on","userCanDisable":false"#, code: "ALWAYS_ON_ENFORCED"),
        VPNCase(
            name: "always-on toggle",
            body:
                "<key>VPNType</key><string>AlwaysOn</string><key>AlwaysOn</key><dict><key>UIToggleEnabled</key><integer>1</integer></dict>",
            decision: .ok, json: #""required":false,"mode":"always-on","userCanDisable":true"#,
            code: "ALWAYS_ON_USER_CAN_DISABLE"),
        VPNCase(
            name: "on-demand all networks enforced",
            body:
                "<key>VPNType</key><string>IKEv2</string><key>IKEv2</key><dict><key>OnDemandEnabled</key><integer>1</integer><key>IncludeAllNetworks</key><integer>1</integer><key>OnDemandUserOverrideDisabled</key><integer>1</integer></dict>",
            decision: .ok, json: #""required":true,"mode":"on-demand","userCanDisable":false"#,
            code: "ON_DEMAND_ALL_ENFORCED"),
        VPNCase(
            name: "on-demand rules",
            body:
                "<key>VPNType</key><string>IKEv2</string><key>IKEv2</key><dict><key>OnDemandEnabled</key><integer>1</integer><key>IncludeAllNetworks</key><integer>1</integer><key>OnDemandRules</key><array/></dict>",
            decision: .conditional, json: #""required":"conditional","mode":"on-demand","userCanDisable":false"#,
            code: "ON_DEMAND_RULES_NOT_EVALUATED"),
        VPNCase(
            name: "on-demand overridable",
            body:
                "<key>VPNType</key><string>VPN</string><key>VPN</key><dict><key>OnDemandEnabled</key><integer>1</integer><key>IncludeAllNetworks</key><integer>1</integer></dict>",
            decision: .ok, json: #""required":false,"mode":"on-demand","userCanDisable":true"#,
            code: "ON_DEMAND_USER_OVERRIDABLE"),
        VPNCase(
            name: "plain IKEv2", body: "<key>VPNType</key><string>IKEv2</string>", decision: .ok,
            json: #""required":false,"mode":null,"userCanDisable":null"#, code: "NO_VPN_REQUIREMENT"),
    ])
    func vpnModes(_ testCase: VPNCase) {
        let engine = Fixture.engine([
            ("v.plist", Fixture.profile("com.t.v", [("com.apple.vpn.managed", "com.t.v.p", testCase.body)]))
        ])
        let answer = Fixture.ask(engine, .vpn)
        #expect(answer.decision == testCase.decision)
        #expect(answer.json.serialized(pretty: false).contains(testCase.json))
        #expect(answer.codes == [testCase.code])
    }

    @Test func strongestVPNWins() {
        let engine = Fixture.engine([
            (
                "a.plist",
                Fixture.profile(
                    "com.t.a",
                    [
                        (
                            "com.apple.vpn.managed", "com.t.a.v",
                            "<key>VPNType</key><string>AlwaysOn</string><key>AlwaysOn</key><dict><key>UIToggleEnabled</key><integer>1</integer></dict>"
                        )
                    ])
            ),
            (
                "b.plist",
                Fixture.profile(
                    "com.t.b",
                    [
                        (
                            "com.apple.vpn.managed", "com.t.b.v",
                            "<key>VPNType</key><string>IKEv2</string><key>IKEv2</key><dict><key>OnDemandEnabled</key><integer>1</integer><key>IncludeAllNetworks</key><integer>1</integer><key>OnDemandUserOverrideDisabled</key><integer>1</integer></dict>"
                        )
                    ])
            ),
        ])
        let answer = Fixture.ask(engine, .vpn)
        #expect(answer.json.serialized(pretty: false).contains(#""required":true,"mode":"on-demand""#))
        #expect(answer.codes == ["ON_DEMAND_ALL_ENFORCED", "ALWAYS_ON_USER_CAN_DISABLE"])
    }
}
