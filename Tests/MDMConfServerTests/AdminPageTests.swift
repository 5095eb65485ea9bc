import Fleet
import FleetTestSupport
import Foundation
import Logging
import MDMConf
import MDMConfServer
import TestScratch
import Testing

/// The admin page over real HTTP on loopback (*The admin page*): every page for the example catalog, the session and
/// CSRF rules, escaping, a broken reload, development mode. The browser tests (Tests/Browser) drive the same
/// pages in Chromium.
@Suite struct AdminPageTests {
    /// A logged-in admin: the session cookie and the CSRF token of its forms.
    struct Session {
        var cookie: String
        var csrf: String
        var headers: [String: String] { ["Cookie": "mdmconf_session=\(cookie)"] }
    }

    static func cookie(_ response: RawHTTP.Response, _ name: String) -> String? {
        for (field, value) in response.headers where field.lowercased() == "set-cookie" {
            let pair = value.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == name { return String(pair[1]) }
        }
        return nil
    }

    static func setCookie(_ response: RawHTTP.Response, _ name: String) -> String? {
        response.headers.first { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix(name + "=") }?.1
    }

    /// The value of the first hidden `csrf` field of a page.
    static func csrf(in html: String) -> String? {
        guard let range = html.range(of: #"name="csrf" value=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    static let form = ["Content-Type": "application/x-www-form-urlencoded"]

    /// The validate page's result headline (`<h2 id="result">`), or nil when the page has none.
    static func headline(_ html: String) -> String? {
        guard let start = html.range(of: #"<h2 id="result">"#) else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "<" })
    }

    /// `text` as a form field value (`application/x-www-form-urlencoded`).
    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func logIn(_ http: RawHTTP, token: String = "example-admin-token-c0ffee") async throws -> RawHTTP.Response {
        let page = try await http.request("GET", "/admin/login")
        let login = try #require(cookie(page, "mdmconf_login"))
        let csrf = try #require(Self.csrf(in: page.text))
        #expect(csrf == login)
        return try await http.request(
            "POST", "/admin/login",
            headers: form.merging(["Cookie": "mdmconf_login=\(login)"]) { $1 },
            body: "csrf=\(csrf)&next=%2Fadmin&token=\(token)")
    }

    static func session(_ http: RawHTTP) async throws -> Session {
        let response = try await logIn(http)
        #expect(response.status == 303)
        let cookie = try #require(Self.cookie(response, "mdmconf_session"))
        let overview = try await http.request("GET", "/admin", headers: ["Cookie": "mdmconf_session=\(cookie)"])
        return Session(cookie: cookie, csrf: try #require(csrf(in: overview.text)))
    }

    struct Page: Sendable, CustomTestStringConvertible {
        var name: String
        var target: String
        var status = 200
        var contains: [String]
        var testDescription: String { name }
    }

    static let pages: [Page] = [
        Page(
            name: "overview", target: "/admin",
            contains: [
                "<h1>Catalog</h1>", "com.example.field", "com.example.fieldsync", "appconfig · 13 keys", "warehouse",
                "3 policies", "Devices in the inventory", "<svg class=\"chart\"", "Log out",
            ]),
        Page(
            name: "app", target: "/admin/apps/com.example.field",
            contains: [
                "ServerURL", "SyncIntervalMinutes", "config.plist", "configs/warehouse.plist", "As served to a device",
                "field-3.0-floor:", "&lt;key&gt;ServerURL&lt;/key&gt;",
            ]),
        Page(
            name: "app as served to ipad-0042", target: "/admin/apps/com.example.field?device=ipad-0042",
            contains: ["dock.team@example.com", "DMPXK2ABCD42", "<dt>Variant</dt><dd>warehouse</dd>", "ETag (plist)"]),
        Page(name: "unknown app", target: "/admin/apps/com.example.nope", status: 404, contains: ["No app"]),
        Page(
            name: "validate form", target: "/admin/validate",
            contains: ["enctype=\"multipart/form-data\"", "name=\"csrf\""]),
        Page(
            name: "update what-if: required below the minimum after the deadline",
            target:
                "/admin/update?app=com.example.field&version=2.3.1&platform=ios&osVersion=17.4&now=2026-11-30T09%3A00%3A00Z",
            contains: [
                "Decision: <span class=\"badge required\">required</span>", "below_min_version", "deadline_passed",
                "field-3.0-floor",
            ]),
        Page(
            name: "update what-if: before the deadline, shown in the device's zone",
            target:
                "/admin/update?app=com.example.field&version=2.3.1&platform=ios&osVersion=17.4&timeZone=America%2FSao_Paulo&now=2026-06-20T12%3A00%3A00Z",
            contains: [
                "Deadline on the device", "2026-07-01 09:00:00 America/Sao_Paulo, UTC-03:00", "below_min_version",
            ]),
        Page(
            name: "update what-if: OS too old",
            target: "/admin/update?app=com.example.field&version=2.0&platform=ios&osVersion=15.7",
            contains: ["unsupported"]),
        Page(
            name: "update what-if: a bad version",
            target: "/admin/update?app=com.example.field&version=two&platform=ios",
            contains: ["The request is not valid", "invalid_version"]),
        Page(
            name: "policy what-if: a denied URL",
            target: "/admin/policy?type=url&arg=https%3A%2F%2Fadmin.acme.com%2Flogin",
            contains: ["badge deny", "URL_DENYLISTED", "30-web-filter.mobileconfig:", "trace match"]),
        Page(
            name: "policy what-if: Wi-Fi", target: "/admin/policy?type=wifi&arg=ACME-Store",
            contains: ["Answer:", "ACME-Store"]),
        Page(name: "policy what-if: kiosk", target: "/admin/policy?type=kiosk", contains: ["Answer:", "KIOSK"]),
        Page(
            name: "policy what-if: a bad time", target: "/admin/policy?type=url&arg=https%3A%2F%2Fa.example&at=monday",
            contains: ["not an RFC 3339 time"]),
        Page(
            name: "fleet", target: "/admin/fleet",
            contains: ["iphone-0117", "ipad-0042", "never checked in", "Versions per app"]),
        Page(
            name: "fleet with a bad filter", target: "/admin/fleet?status=happy", status: 400, contains: ["Bad filter"]),
        Page(
            name: "a device never seen", target: "/admin/fleet/devices/iphone-0400",
            contains: ["Device iphone-0400", "not compliant", "This device has not checked in"]),
        Page(name: "an unknown device", target: "/admin/fleet/devices/nobody", status: 404, contains: ["No device"]),
        Page(name: "history, empty", target: "/admin/history", contains: ["holds no published generation"]),
        Page(name: "a generation not stored", target: "/admin/history/7", status: 404, contains: ["No generation 7"]),
        Page(name: "events, none configured", target: "/admin/events", contains: ["No endpoint receives events"]),
        Page(name: "the stylesheet", target: "/admin/style.css", contains: ["font:", "@media"]),
    ]

    @Test func everyPageForTheExampleCatalog() async throws {
        let store = try await TestStores.open(.sqlite)
        try await Fixture.live(try Fixture.store(), fleet: FleetService(store: store, replica: "a")) { http, _ in
            let session = try await Self.session(http)
            for page in Self.pages {
                let response = try await http.request("GET", page.target, headers: session.headers)
                #expect(response.status == page.status, "\(page.name): \(response.text.prefix(300))")
                for text in page.contains {
                    #expect(response.text.contains(text), "\(page.name): no '\(text)'")
                }
                if page.target != "/admin/style.css" {
                    let policy = try #require(response.header("Content-Security-Policy"), "\(page.name)")
                    #expect(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"))
                    #expect(!response.text.contains("<script"), "\(page.name): no script on any page")
                    #expect(response.header("Cache-Control") == "no-store")
                }
            }
        }
        try await store.close()
    }

    @Test func loginRules() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            // Without a session every page sends to the login form, keeping where the admin was going.
            let anonymous = try await http.request("GET", "/admin/fleet?status=silent")
            #expect(anonymous.status == 303)
            #expect(anonymous.header("Location") == "/admin/login?next=%2Fadmin%2Ffleet%3Fstatus%3Dsilent")
            // A device token never gets in.
            let device = try await Self.logIn(http, token: "example-device-token-iphone-0117")
            #expect(device.status == 403)
            #expect(device.text.contains("device token"))
            #expect(Self.cookie(device, "mdmconf_session") == nil)
            let wrong = try await Self.logIn(http, token: "nope")
            #expect(wrong.status == 401)
            #expect(Self.cookie(wrong, "mdmconf_session") == nil)
            // A login form posted without its cookie (from another site) is refused.
            let page = try await http.request("GET", "/admin/login")
            let csrf = try #require(Self.csrf(in: page.text))
            let forged = try await http.request(
                "POST", "/admin/login", headers: Self.form, body: "csrf=\(csrf)&token=example-admin-token-c0ffee")
            #expect(forged.status == 403)
            // The admin token: a session cookie, HttpOnly and SameSite=Strict (not Secure on loopback).
            let admin = try await Self.logIn(http)
            #expect(admin.status == 303)
            #expect(admin.header("Location") == "/admin")
            let cookie = try #require(Self.setCookie(admin, "mdmconf_session"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/admin"))
            #expect(!cookie.contains("Secure"))
            // `next` only leads inside the admin page (no open redirect).
            for (next, location) in [
                ("https%3A%2F%2Fevil.example%2F", "/admin"), ("%2F%2Fevil.example%2Fadmin", "/admin"),
                ("%2Fadmin%2Ffleet", "/admin/fleet"),
            ] {
                let page = try await http.request("GET", "/admin/login")
                let token = try #require(Self.cookie(page, "mdmconf_login"))
                let response = try await http.request(
                    "POST", "/admin/login", headers: Self.form.merging(["Cookie": "mdmconf_login=\(token)"]) { $1 },
                    body: "csrf=\(token)&next=\(next)&token=example-admin-token-c0ffee")
                #expect(response.header("Location") == location, "next=\(next)")
            }
        }
    }

    @Test func csrfAndLogout() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            let session = try await Self.session(http)
            let body = "app=com.example.field&plist=%3Cplist%3E%3Cdict%2F%3E%3C%2Fplist%3E"
            let headers = Self.form.merging(session.headers) { $1 }
            let missing = try await http.request("POST", "/admin/validate", headers: headers, body: body)
            #expect(missing.status == 403)
            #expect(missing.text.contains("Form expired"))
            let forged = try await http.request(
                "POST", "/admin/validate", headers: headers, body: body + "&csrf=" + String(repeating: "0", count: 64))
            #expect(forged.status == 403)
            let rollback = try await http.request(
                "POST", "/admin/history/1/rollback", headers: headers, body: "message=x")
            #expect(rollback.status == 403)
            // With the token the form is validated: the example's own configuration is valid, an empty dictionary
            // misses the schema's required keys. (The headline, not the page: "Validate" is in every page's menu.)
            let example = try String(
                contentsOfFile: Fixture.exampleCatalog + "/apps/com.example.field/config.plist", encoding: .utf8)
            for (plist, headline) in [(example, "Valid"), ("<plist><dict/></plist>", "Not valid: ")] {
                let good = try await http.request(
                    "POST", "/admin/validate", headers: headers,
                    body: "app=com.example.field&csrf=\(session.csrf)&plist=" + Self.formEncoded(plist))
                #expect(good.status == 200)
                #expect(Self.headline(good.text)?.hasPrefix(headline) == true, "\(Self.headline(good.text) ?? good.text)")
            }
            #expect(Self.headline(example) == nil)
            // Logging out needs the token too, then the session is gone.
            let out = try await http.request("POST", "/admin/logout", headers: headers, body: "csrf=" + session.csrf)
            #expect(out.status == 303)
            let after = try await http.request("GET", "/admin", headers: session.headers)
            #expect(after.status == 303)
        }
    }

    @Test func anExpiredSessionLogsInAgain() async throws {
        let clock = TestClock()
        var options = ServerOptions(host: "127.0.0.1", port: 0, watch: false, reloadOnSIGHUP: false)
        options.adminSessionLifetime = 2
        options.clock = clock.read
        let app = MDMConfServer.buildApplication(
            store: try Fixture.store(), options: options, logger: Fixture.logger)
        try await app.test(.live) { client in
            let http = RawHTTP(port: try #require(client.port))
            let login = try await Self.logIn(http)
            let headers = ["Cookie": "mdmconf_session=\(try #require(Self.cookie(login, "mdmconf_session")))"]
            #expect(try await http.request("GET", "/admin", headers: headers).status == 200)
            clock.advance(seconds: 1)
            #expect(try await http.request("GET", "/admin/validate", headers: headers).status == 200)
            clock.advance(seconds: 1)
            let expired = try await http.request("GET", "/admin/validate", headers: headers)
            #expect(expired.status == 303)
            #expect(expired.header("Location")?.hasPrefix("/admin/login") == true)
        }
    }

    /// A copy of the example catalog, changed by `edit`.
    static func catalogCopy(_ edit: (String) throws -> Void) throws -> String {
        let folder = Scratch.url("admin-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: Fixture.exampleCatalog, toPath: folder)
        try edit(folder)
        return folder
    }

    static func replace(_ old: String, _ new: String, in file: String) throws {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains(old), "\(file) has no \(old)")
        try text.replacingOccurrences(of: old, with: new).write(toFile: file, atomically: true, encoding: .utf8)
    }

    @Test func everythingIsEscaped() async throws {
        let folder = try Self.catalogCopy { folder in
            try Self.replace(
                "<string>$SERIALNUMBER</string>", "<string>&lt;script&gt;alert(1)&lt;/script&gt;</string>",
                in: folder + "/apps/com.example.field/config.plist")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Fixture.live(try Fixture.store(folder)) { http, _ in
            let session = try await Self.session(http)
            let app = try await http.request("GET", "/admin/apps/com.example.field", headers: session.headers)
            #expect(app.status == 200)
            #expect(!app.text.contains("<script"))
            #expect(app.text.contains("&amp;lt;script&amp;gt;alert(1)"))
            // A pasted value and an uploaded file's name reach the page as text.
            let boundary = "XyZ123"
            let plist = """
                <plist version="1.0"><dict><key>Theme</key><string>&lt;script&gt;alert(2)&lt;/script&gt;</string></dict></plist>
                """
            let body = [
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(session.csrf)\r\n",
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"app\"\r\n\r\ncom.example.field\r\n",
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"plist\"\r\n\r\n\r\n",
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"<img src=x onerror=alert(3)>.plist\"\r\nContent-Type: application/xml\r\n\r\n\(plist)\r\n",
                "--\(boundary)--\r\n",
            ].joined()
            let upload = try await http.request(
                "POST", "/admin/validate",
                headers: session.headers.merging(["Content-Type": "multipart/form-data; boundary=\(boundary)"]) { $1 },
                body: body)
            #expect(upload.status == 200)
            #expect(!upload.text.contains("<script") && !upload.text.contains("<img"))
            #expect(upload.text.contains("&lt;script&gt;alert(2)&lt;/script&gt;"))
            #expect(upload.text.contains("&lt;img src=x onerror=alert(3)&gt;.plist:1:"))
            #expect(upload.text.contains("MC2005"))
        }
    }

    /// Secrets are redacted wherever the page shows a configuration: as served and as written.
    @Test func secretsAreRedacted() async throws {
        let folder = try Self.catalogCopy { folder in
            try Self.replace(
                "<key>UserEmail</key>",
                "<key>APIToken</key>\n\t<string>s3cret-value-0117</string>\n\t<key>UserEmail</key>",
                in: folder + "/apps/com.example.field/config.plist")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Fixture.live(try Fixture.store(folder)) { http, _ in
            let session = try await Self.session(http)
            let page = try await http.request(
                "GET", "/admin/apps/com.example.field?device=iphone-0201", headers: session.headers)
            #expect(page.status == 200)
            #expect(!page.text.contains("s3cret-value-0117"))
            #expect(page.text.contains("&lt;key&gt;APIToken&lt;/key&gt;"))
            #expect(page.text.contains("<dt>Redacted values</dt><dd>1</dd>"))
            // The device still gets it.
            let served = try await http.request(
                "GET", "/v1/apps/com.example.field/config?device=iphone-0201", headers: Fixture.admin)
            #expect(served.text.contains("s3cret-value-0117"))
        }
    }

    @Test func aBrokenReloadIsShownWithItsFindings() async throws {
        let folder = try Self.catalogCopy { _ in }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Fixture.store(folder)
        try Self.replace(
            "<integer>443</integer>", "<string>four-four-three</string>",
            in: folder + "/apps/com.example.field/config.plist")
        #expect(store.reload() == false)
        try await Fixture.live(store) { http, _ in
            let session = try await Self.session(http)
            let page = try await http.request("GET", "/admin", headers: session.headers)
            #expect(page.text.contains("The last reload failed"))
            #expect(page.text.contains("config.plist:9:"))
            #expect(page.text.contains("MC2003"))
            #expect(page.text.contains("generation 1 is still served"))
        }
    }

    @Test func developmentModeOpensWithABanner() async throws {
        let folder = try Self.catalogCopy { folder in
            try FileManager.default.removeItem(atPath: folder + "/tokens.plist")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Fixture.live(try Fixture.store(folder)) { http, _ in
            let page = try await http.request("GET", "/admin")
            #expect(page.status == 200)
            #expect(page.text.contains("Development mode."))
            let cookie = try #require(Self.cookie(page, "mdmconf_session"))
            let csrf = try #require(Self.csrf(in: page.text))
            #expect(try await http.request("GET", "/admin/login").status == 303)
            let validated = try await http.request(
                "POST", "/admin/validate",
                headers: Self.form.merging(["Cookie": "mdmconf_session=\(cookie)"]) { $1 },
                body: "app=com.example.field&csrf=\(csrf)&plist=%3Cplist%3E%3Cdict%2F%3E%3C%2Fplist%3E")
            #expect(validated.status == 200)
            // Without the session's token a form is still refused.
            let forged = try await http.request(
                "POST", "/admin/validate", headers: Self.form, body: "app=com.example.field&plist=x")
            #expect(forged.status == 403)
        }
    }
}
