import Fleet
import FleetTestSupport
import Foundation
import MDMConf
import MDMConfServer
import Testing
import WebhookEvents

/// The declarative channel over real HTTP: each Apple device's tokens, declaration items and declarations as
/// `mdmconf ddm export` makes them, the data assets by hash, who may read what, and the tokens moving on a reload.
@Suite struct DDMServerTests {
    static let base = "https://mdm.example.com:8443"
    static let mdmToken = "example-mdm-token-for-tests"

    static func json(_ response: RawHTTP.Response) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }

    /// A copy of the example catalog with an MDM token added.
    static func catalogWithMDMToken() throws -> URL {
        let catalog = try TestStores.copyCatalog()
        let file = catalog.appendingPathComponent("tokens.plist")
        let digest = ContentHash.hex(Array(mdmToken.utf8))
        var text = try String(contentsOf: file, encoding: .utf8)
        text = text.replacingOccurrences(
            of: "</dict>\n</plist>",
            with: "\t<key>\(digest)</key>\n\t<dict>\n\t\t<key>scope</key>\n\t\t<string>mdm</string>\n\t</dict>\n</dict>\n</plist>")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return catalog
    }

    @Test func aDevicesSetAsTheExportMakesIt() async throws {
        let store = try Fixture.store()
        try await Fixture.live(store, publicURL: Self.base) { http, _ in
            let state = store.current
            let expected = DDMExporter(baseURL: Self.base, timestamp: state.changedAt.description)
                .set(for: "iphone-0117", catalog: state.catalog)
            let tokens = try await http.request("GET", "/v1/ddm/iphone-0117/tokens", headers: Fixture.admin)
            #expect(tokens.status == 200 && tokens.header("Content-Type") == "application/json")
            #expect(tokens.text == expected.tokensJSON)
            let items = try await http.request("GET", "/v1/ddm/iphone-0117/declaration-items", headers: Fixture.iphone)
            #expect(items.status == 200 && items.text == expected.declarationItemsJSON, "\(items.text)")
            for declaration in expected.declarations {
                let one = try await http.request(
                    "GET", "/v1/ddm/iphone-0117/declaration/\(declaration.type)/\(declaration.identifier)",
                    headers: Fixture.iphone)
                #expect(one.status == 200 && one.text == declaration.json, "\(declaration.identifier)")
            }
            let missing = try await http.request(
                "GET", "/v1/ddm/iphone-0117/declaration/com.apple.asset.data/io.mdmconf.app.com.example.field",
                headers: Fixture.iphone)
            #expect(missing.status == 404)

            // The asset: the bytes the HTTP channel serves the device, by their hash, without a token.
            let config = try await http.request(
                "GET", "/v1/apps/com.example.field/config", headers: Fixture.iphone)
            let asset = try #require(expected.assets.first { $0.bytes == config.body })
            let fetched = try await http.request("GET", "/v1/ddm/assets/\(asset.sha256).plist")
            #expect(fetched.status == 200 && fetched.body == config.body)
            #expect(fetched.header("ETag") == "\"\(asset.sha256)\"")
            #expect(fetched.header("Cache-Control")?.contains("immutable") == true)
            #expect(fetched.header("Content-Type") == "application/x-plist")
            let again = try await http.request(
                "GET", "/v1/ddm/assets/\(asset.sha256).plist", headers: ["If-None-Match": "\"\(asset.sha256)\""])
            #expect(again.status == 304 && again.body.isEmpty)
            let unknown = try await http.request("GET", "/v1/ddm/assets/\(String(repeating: "0", count: 64)).plist")
            #expect(unknown.status == 404)
            let badName = try await http.request("GET", "/v1/ddm/assets/ABC.plist")
            #expect(badName.status == 400)
        }
    }

    /// Who may read which set: a device token its own, an admin or MDM token any; the MDM token nothing of the fleet.
    @Test func whoMayReadWhat() async throws {
        let catalog = try Self.catalogWithMDMToken()
        let mdm = ["Authorization": "Bearer \(Self.mdmToken)"]
        let fleet = try await CheckInServerTests.fleet()
        try await Fixture.live(try Fixture.store(catalog.path), fleet: fleet, publicURL: Self.base) { http, _ in
            let cases: [(String, [String: String], Int)] = [
                ("/v1/ddm/iphone-0117/tokens", Fixture.iphone, 200),
                ("/v1/ddm/ipad-0042/tokens", Fixture.iphone, 403),
                ("/v1/ddm/ipad-0042/tokens", Fixture.admin, 200),
                ("/v1/ddm/ipad-0042/declaration-items", mdm, 200),
                ("/v1/ddm/iphone-0117/tokens", [:], 401),
                ("/v1/ddm/iphone-0117/tokens", ["Authorization": "Bearer nope"], 401),
                ("/v1/ddm/pixel-0500/tokens", mdm, 404),
                ("/v1/ddm/iphone-9999/tokens", mdm, 404),
                ("/v1/ddm/bad%20id/tokens", mdm, 400),
                ("/v1/fleet/summary", mdm, 403),
            ]
            for (target, headers, status) in cases {
                let response = try await http.request("GET", target, headers: headers)
                #expect(response.status == status, "\(target) \(headers): \(response.text)")
                if status >= 400 { #expect(response.text.contains("\"error\""), "\(target)") }
            }
            let checkIn = try await http.request(
                "POST", "/v1/checkin", headers: mdm,
                body: #"{"device": "iphone-0117", "platform": "ios", "apps": [{"app": "com.example.field", "version": "3.2.1"}]}"#)
            #expect(checkIn.status == 403, "\(checkIn.text)")
            #expect(try await fleet.store?.counts().checkIns == 0, "nothing of a refused check-in is stored")
        }
        try await fleet.store?.close()
    }

    /// A changed configuration moves the tokens as soon as the catalog reloads.
    @Test func aReloadMovesTheTokensAtOnce() async throws {
        let catalog = try TestStores.copyCatalog()
        let store = try Fixture.store(catalog.path)
        try await Fixture.live(store, publicURL: Self.base) { http, _ in
            let before = try Self.json(try await http.request("GET", "/v1/ddm/iphone-0117/declaration-items", headers: Fixture.admin))
            let file = catalog.appendingPathComponent("apps/com.example.fieldsync/config.plist")
            let text = try String(contentsOf: file, encoding: .utf8)
            try text.replacingOccurrences(of: "<string>warning</string>", with: "<string>error</string>")
                .write(to: file, atomically: true, encoding: .utf8)
            #expect(store.reload())
            let after = try Self.json(try await http.request("GET", "/v1/ddm/iphone-0117/declaration-items", headers: Fixture.admin))
            #expect(before["DeclarationsToken"] as? String != after["DeclarationsToken"] as? String)
            func token(_ items: [String: Any], _ kind: String, _ identifier: String) -> String? {
                ((items["Declarations"] as? [String: Any])?[kind] as? [[String: Any]])?
                    .first { $0["Identifier"] as? String == identifier }?["ServerToken"] as? String
            }
            #expect(token(before, "Assets", "io.mdmconf.asset.com.example.fieldsync") != token(after, "Assets", "io.mdmconf.asset.com.example.fieldsync"))
            #expect(token(before, "Assets", "io.mdmconf.asset.com.example.field") == token(after, "Assets", "io.mdmconf.asset.com.example.field"))
        }
    }

    static func statusReport(app: String, version: String, state: String?, token: String?, reasons: String = "") -> String {
        let configState = state.map { #", "config-state": "\#($0)""# } ?? ""
        let reasonList = reasons.isEmpty ? "" : #", "reasons": [{"code": "Error.ConfigurationInvalid", "description": "\#(reasons)"}]"#
        let asset = token.map { #"{"identifier": "io.mdmconf.asset.\#(app)", "server-token": "\#($0)", "valid": "valid", "active": true}"# } ?? ""
        return #"""
            {"StatusItems": {"management": {"declarations": {"assets": [\#(asset)]}},
             "app": {"managed": {"list": [{"identifier": "\#(app)", "short-version": "\#(version)", "state": "managed"\#(configState)\#(reasonList)}]}},
             "device": {"model": {"family": "iPhone"}}}, "Errors": []}
            """#
    }

    /// A status report closes the loop: `config-state` `valid` with the asset token served now is current, an older
    /// token stale, `invalid` an error with the device's reasons, and the device is judged by it in the fleet views.
    @Test(arguments: StoreKind.available)
    func aStatusReportIsJudgedLikeACheckIn(kind: StoreKind) async throws {
        // An endpoint receives configuration errors (nothing listens there: the events stay in the outbox).
        let endpoint = EventEndpoint(
            name: "ops", url: "http://127.0.0.1:9/", types: [.configError], secret: .environment("UNUSED"))
        let fleet = FleetService(store: try await TestStores.open(kind), replica: "replica-a", events: [endpoint])
        let store = try Fixture.store()
        try await Fixture.live(store, fleet: fleet, publicURL: Self.base) { http, _ in
            let state = store.current
            let set = DDMExporter(baseURL: Self.base, timestamp: "").set(for: "iphone-0117", catalog: state.catalog)
            let token = try #require(set.declaration(type: "com.apple.asset.data", identifier: "io.mdmconf.asset.com.example.field")?.serverToken)
            let app = "com.example.field"
            let cases: [(String?, String?, String, String)] = [
                ("valid", token, "", "current"),
                ("valid", "0123", "", "stale"),
                ("invalid", token, "ServerPort must be an integer", "error"),
            ]
            for (configState, held, reasons, expected) in cases {
                let answer = try await http.request(
                    "POST", "/v1/ddm/iphone-0117/status", headers: Fixture.iphone,
                    body: Self.statusReport(app: app, version: "3.2.1", state: configState, token: held, reasons: reasons))
                #expect(answer.status == 200, "\(answer.text)")
                let page = try await http.request("GET", "/v1/fleet/devices/iphone-0117", headers: Fixture.admin)
                #expect(page.text.contains(#""status": "\#(expected)""#), "\(configState ?? "-") \(held ?? "-"): \(page.text)")
                // The channel and the device's own words for the app's states, in the app's row and in the history.
                #expect(page.text.contains(#""channel": "ddm""#), "\(page.text)")
                #expect(page.text.contains(#""state": "managed""#), "\(page.text)")
                #expect(page.text.contains(#""configState": "\#(configState ?? "")""#), "\(page.text)")
                if expected == "error" {
                    #expect(page.text.contains("ServerPort must be an integer"), "the device's reason: \(page.text)")
                    #expect(page.text.contains(#""compliant": false"#))
                    #expect(page.text.contains("config error (Error.ConfigurationInvalid: ServerPort must be an integer)"))
                }
                let device = try Self.json(page)
                let checkIns = try #require(device["recentCheckins"] as? [[String: Any]])
                let latest = try #require(checkIns.first?["checkin"] as? [String: Any], "the history reads: \(checkIns)")
                let reported = try #require((latest["apps"] as? [[String: Any]])?.first)
                #expect((reported["ddm"] as? [String: Any])?["configState"] as? String == configState)
            }
            // The invalid report is a configuration error: one event, with the device's reason.
            let events = try await EventOutbox(store: try #require(fleet.store)).list()
            #expect(events.map(\.event.type) == [EventType.configError.rawValue])
            #expect(events.first?.event.body.contains("ServerPort must be an integer") == true)
            let stored = try await fleet.store?.counts().checkIns
            // Hostile or wrong bodies: refused, nothing stored.
            let refusals: [(String, Int)] = [
                ("not json", 400), ("[]", 400), (#"{"Errors": []}"#, 422),
                (#"{"StatusItems": {"app": {"managed": {"list": {}}}}}"#, 422),
                (#"{"StatusItems": {}, "Extra": 1}"#, 422),
                (#"{"StatusItems": {"app": {"managed": {"list": [7]}}}}"#, 422),
                (#"{"StatusItems": {"app": {"managed": {"list": [{"identifier": "com.example.field", "short-version": "3.2.1", "config-state": 7}]}}}}"#, 422),
                (#"{"StatusItems": {"app": {"managed": {"list": [{"identifier": "com.example.field", "short-version": "3.2.1", "state": "\#(String(repeating: "m", count: 65))"}]}}}}"#, 422),
            ]
            for (body, status) in refusals {
                let response = try await http.request("POST", "/v1/ddm/iphone-0117/status", headers: Fixture.iphone, body: body)
                #expect(response.status == status, "\(body): \(response.text)")
            }
            let other = try await http.request(
                "POST", "/v1/ddm/ipad-0042/status", headers: Fixture.iphone, body: #"{"StatusItems": {}}"#)
            #expect(other.status == 403)
            #expect(try await fleet.store?.counts().checkIns == stored, "a refused report stores nothing")
        }
        try await fleet.store?.close()
    }

    /// Plain HTTP with tokens and no public URL has no https URL to hand devices: 503 with the reason.
    @Test func noHTTPSURLIsA503() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            let response = try await http.request("GET", "/v1/ddm/iphone-0117/tokens", headers: Fixture.admin)
            #expect(response.status == 503 && response.text.contains("MC6110"), "\(response.text)")
        }
    }
}
