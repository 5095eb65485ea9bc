import Fleet
import FleetTestSupport
import MDMConf
import PropertyList
import Testing

/// Every field of a check-in through the grammars of *Update policies*: one reason per bad field, by its path.
struct CheckInTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var body: String
        /// `field=code` for each expected reason; empty when the check-in is valid.
        var reasons: [String]
        var testDescription: String { name }
    }

    static let app = #"{"app": "com.example.field", "version": "3.2.1"}"#

    static func body(_ top: String = #""platform": "ios""#, apps: String = app) -> String {
        "{\(top), \"apps\": [\(apps)]}"
    }

    static let cases: [Case] = [
        Case(name: "minimal", body: body(), reasons: []),
        Case(
            name: "every field",
            body: #"""
                {"device": "iphone-0117", "at": "2026-11-24T10:00:00Z", "platform": "ios", "osVersion": "17.4.1",
                 "deviceModel": "iPhone15,2", "locale": "pt-BR", "timeZone": "America/Sao_Paulo",
                 "enrolledAt": "2026-01-02T03:04:05+01:00",
                 "apps": [{"app": "com.example.field", "version": "2.3.1", "build": "231", "channel": "stable",
                           "configETag": "\"8f1c\"", "configError": null, "deferralsUsed": 1}]}
                """#, reasons: []),
        Case(name: "bad app version", body: body(apps: #"{"app": "a.b", "version": "two"}"#), reasons: ["apps[0].version=invalid_version"]),
        Case(name: "bad OS version", body: body(#""platform": "ios", "osVersion": "17.x""#), reasons: ["osVersion=invalid_os_version"]),
        Case(name: "bad platform", body: body(#""platform": "i os""#), reasons: ["platform=invalid_platform"]),
        Case(name: "missing platform", body: #"{"apps": []}"#, reasons: ["platform=invalid_platform"]),
        Case(name: "bad locale", body: body(#""platform": "ios", "locale": "1234""#), reasons: ["locale=invalid_locale"]),
        Case(name: "unknown zone", body: body(#""platform": "ios", "timeZone": "Mars/Olympus""#), reasons: ["timeZone=invalid_time_zone"]),
        Case(name: "bad at", body: body(#""platform": "ios", "at": "yesterday""#), reasons: ["at=invalid_at"]),
        Case(name: "at without zone", body: body(#""platform": "ios", "at": "2026-11-24T10:00:00""#), reasons: ["at=invalid_at"]),
        Case(name: "bad device id", body: body(#""platform": "ios", "device": "a/b""#), reasons: ["device=invalid_device"]),
        Case(name: "device not a string", body: body(#""platform": "ios", "device": 7"#), reasons: ["device=invalid_device"]),
        Case(name: "bad build", body: body(apps: #"{"app": "a.b", "version": "1.0", "build": "x y"}"#), reasons: ["apps[0].build=invalid_build"]),
        Case(name: "bad channel", body: body(apps: #"{"app": "a.b", "version": "1.0", "channel": "be ta"}"#), reasons: ["apps[0].channel=invalid_channel"]),
        Case(name: "negative deferrals", body: body(apps: #"{"app": "a.b", "version": "1.0", "deferralsUsed": -1}"#), reasons: ["apps[0].deferralsUsed=invalid_deferrals"]),
        Case(name: "missing app id", body: body(apps: #"{"version": "1.0"}"#), reasons: ["apps[0].app=invalid_app"]),
        Case(name: "app id not a string", body: body(apps: #"{"app": 1, "version": "1.0"}"#), reasons: ["apps[0].app=invalid_app"]),
        Case(name: "app id not a bundle id", body: body(apps: #"{"app": "x'); DROP TABLE devices; --", "version": "1.0"}"#), reasons: ["apps[0].app=invalid_app"]),
        Case(name: "app id with an empty label", body: body(apps: #"{"app": "com..field", "version": "1.0"}"#), reasons: ["apps[0].app=invalid_app"]),
        Case(name: "app id with NUL", body: body(apps: #"{"app": "com.example\u0000field", "version": "1.0"}"#), reasons: ["apps[0].app=invalid_app"]),
        Case(name: "entry not an object", body: body(apps: #""com.example.field""#), reasons: ["apps[0]=invalid_app_entry"]),
        Case(name: "duplicate app", body: body(apps: app + ", " + app), reasons: ["apps[1].app=duplicate_app"]),
        Case(name: "unknown top-level key", body: body(#""platform": "ios", "battery": 80"#), reasons: ["battery=unknown_field"]),
        Case(name: "unknown app key", body: body(apps: #"{"app": "a.b", "version": "1.0", "size": 3}"#), reasons: ["apps[0].size=unknown_field"]),
        Case(name: "apps missing", body: #"{"platform": "ios"}"#, reasons: ["apps=invalid_apps"]),
        Case(name: "apps not an array", body: #"{"platform": "ios", "apps": {}}"#, reasons: ["apps=invalid_apps"]),
        Case(
            name: "101 apps",
            body: body(apps: (0...100).map { #"{"app": "com.example.a\#($0)", "version": "1.0"}"# }.joined(separator: ",")),
            reasons: ["apps=too_many_apps"]),
        Case(
            name: "several bad fields at once",
            body: body(
                #""platform": "ios", "osVersion": "x", "locale": "", "zone": 1"#,
                apps: #"{"app": "a.b", "version": "v"}, {"app": "c.d", "version": "1", "build": "?"}"#),
            reasons: [
                "zone=unknown_field", "locale=invalid_locale", "osVersion=invalid_os_version",
                "apps[0].version=invalid_version", "apps[1].build=invalid_build",
            ]),
    ]

    @Test(arguments: cases)
    func grammar(_ testCase: Case) throws {
        let root = try #require(JSONPlistReader(nullMembersAreAbsent: true).read(Array(testCase.body.utf8), file: "body").root)
        switch CheckIn.parse(root) {
        case .success:
            #expect(testCase.reasons.isEmpty, "accepted, expected \(testCase.reasons)")
        case .failure(let errors):
            #expect(!errors.malformed)
            #expect(
                Set(errors.reasons.map { "\($0.field)=\($0.code)" }) == Set(testCase.reasons),
                "got \(errors.reasons)")
            #expect(errors.reasons.count == testCase.reasons.count)
        }
    }

    @Test func fieldsKeptAsSent() throws {
        let body = #"{"device": " iphone-0117 ", "platform": "iOS", "osVersion": "17.4.1", "apps": [{"app": "com.example.field", "version": "2.3.1", "configETag": "\"8f\""}]}"#
        let root = try #require(JSONPlistReader(nullMembersAreAbsent: true).read(Array(body.utf8), file: "body").root)
        let checkIn = try CheckIn.parse(root).get()
        #expect(checkIn.device == "iphone-0117")
        #expect(checkIn.apps == [CheckIn.App(app: "com.example.field", version: "2.3.1", configETag: "\"8f\"")])
        // The stored form reads back to the same check-in.
        let again = try #require(JSONPlistReader(nullMembersAreAbsent: true).read(Array(checkIn.json.serialized(pretty: false).utf8), file: "body").root)
        #expect(try CheckIn.parse(again).get() == checkIn)
    }

    @Test func notAnObject() throws {
        let root = try #require(JSONPlistReader(nullMembersAreAbsent: true).read(Array("[1, 2]".utf8), file: "body").root)
        guard case .failure(let errors) = CheckIn.parse(root) else {
            Issue.record("an array was accepted")
            return
        }
        #expect(errors.malformed)
    }
}
