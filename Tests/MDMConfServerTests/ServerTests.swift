import Fleet
import FleetTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MDMConf
import MDMConfServer
import NIOCore
import ServiceLifecycle
import Testing

enum Fixture {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let exampleCatalog = packageRoot.appendingPathComponent("Examples/catalog").path
    static let logger = Logger(label: "mdmconf-test") { _ in SwiftLogNoOpLogHandler() }

    static let admin = ["Authorization": "Bearer example-admin-token-c0ffee"]
    static let ipad = ["Authorization": "Bearer example-device-token-ipad-0042"]
    static let iphone = ["Authorization": "Bearer example-device-token-iphone-0117"]

    static func store(_ path: String = exampleCatalog) throws -> CatalogStore {
        try CatalogStore(path: path, logger: logger)
    }

    /// The application on an ephemeral loopback port, no signal handling.
    static func app(_ store: CatalogStore, fleet: FleetService? = nil, publicURL: String? = nil)
        -> some ApplicationProtocol
    {
        var options = ServerOptions(host: "127.0.0.1", port: 0, watch: false, reloadOnSIGHUP: false)
        options.publicURL = publicURL
        return MDMConfServer.buildApplication(
            store: store, fleet: fleet ?? FleetService(store: nil, replica: "test"), options: options, logger: logger)
    }

    /// Runs `body` against the live server with a plain HTTP client on its port.
    static func live<Value: Sendable>(
        _ store: CatalogStore, fleet: FleetService? = nil, publicURL: String? = nil,
        _ body: @Sendable @escaping (RawHTTP, any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        try await app(store, fleet: fleet, publicURL: publicURL).test(.live) { client in
            let port = try #require(client.port)
            return try await body(RawHTTP(port: port), client)
        }
    }
}

/// Every endpoint of *Serving a catalog* over real HTTP on loopback.
struct EndpointTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var method = "GET"
        var target: String
        var headers: [String: String] = Fixture.admin
        var body: String?
        var status: Int
        var contains: [String] = []
        var header: [String: String] = [:]

        var testDescription: String { name }
    }

    static let field = "/v1/apps/com.example.field"
    static let cases: [Case] = [
        Case(
            name: "default config keeps variables", target: field + "/config", status: 200,
            contains: ["<string>$EMAIL</string>", "https://field.example.com/api"],
            header: ["Content-Type": "application/x-plist; charset=utf-8", "Cache-Control": "private, max-age=60"]),
        Case(
            name: "admin names a device: variables and group variant", target: field + "/config?device=ipad-0042",
            status: 200, contains: ["dock.team@example.com", "DMPXK2ABCD42", "warehouse.field.example.com"],
            header: ["X-MDMConf-Config-Variant": "warehouse"]),
        Case(
            name: "device token gets its own device", target: field + "/config", headers: Fixture.iphone, status: 200,
            contains: ["ana.lima@example.com", "F2LXP9QRST17", "https://field.example.com/api"]),
        Case(
            name: "device token may name itself", target: field + "/config?device=iphone-0117",
            headers: Fixture.iphone, status: 200, contains: ["ana.lima@example.com"]),
        Case(
            name: "JSON by Accept",
            target: field + "/config?device=iphone-0117",
            headers: Fixture.admin.merging(["Accept": "application/json"]) { $1 }, status: 200,
            contains: ["\"UserEmail\": \"ana.lima@example.com\""], header: ["Content-Type": "application/json"]),
        Case(
            name: "Accept with qualities prefers JSON", target: field + "/config",
            headers: Fixture.admin.merging(["Accept": "application/x-plist;q=0.5, application/json"]) { $1 },
            status: 200, contains: ["\"ServerPort\": 443"]),
        Case(
            name: "Accept without a usable type", target: field + "/config",
            headers: Fixture.admin.merging(["Accept": "text/html"]) { $1 }, status: 406,
            contains: ["\"not_acceptable\""]),
        Case(name: "unknown app", target: "/v1/apps/com.example.nope/config", status: 404, contains: ["MC6104"]),
        Case(name: "unknown device", target: field + "/config?device=ipad-9999", status: 404, contains: ["ipad-9999"]),
        Case(name: "bad device id", target: field + "/config?device=a%2Fb", status: 400),
        Case(name: "traversal in the path", target: "/v1/apps/..%2F..%2Fetc/config", status: 400),
        Case(name: "dot-dot bundle id", target: "/v1/apps/com..example/config", status: 400),
        Case(name: "encoded slash", target: "/v1/apps/com.example.field%2Fconfig/config", status: 400),
        Case(
            name: "no token", target: field + "/config", headers: [:], status: 401,
            header: ["WWW-Authenticate": "Bearer realm=\"mdmconf\""]),
        Case(
            name: "wrong token", target: field + "/config", headers: ["Authorization": "Bearer nope"], status: 401,
            header: ["WWW-Authenticate": "Bearer realm=\"mdmconf\", error=\"invalid_token\""]),
        Case(
            name: "not a bearer", target: field + "/config", headers: ["Authorization": "Basic YTpi"], status: 401),
        // The scheme in any case, leading spaces, and trailing spaces and tabs after the token are accepted.
        Case(
            name: "scheme in another case", target: field + "/config?device=ipad-0042",
            headers: ["Authorization": "  bEaReR example-admin-token-c0ffee \t"], status: 200),
        Case(
            name: "a scheme that only starts like bearer", target: field + "/config",
            headers: ["Authorization": "Bearerx example-admin-token-c0ffee"], status: 401,
            header: ["WWW-Authenticate": "Bearer realm=\"mdmconf\", error=\"invalid_request\""]),
        Case(
            name: "the scheme alone", target: field + "/config", headers: ["Authorization": "Bearer "], status: 401,
            header: ["WWW-Authenticate": "Bearer realm=\"mdmconf\", error=\"invalid_request\""]),
        Case(
            name: "two spaces before the token", target: field + "/config",
            headers: ["Authorization": "Bearer  example-admin-token-c0ffee"], status: 401,
            header: ["WWW-Authenticate": "Bearer realm=\"mdmconf\", error=\"invalid_token\""]),
        Case(
            name: "device token asks for another device", target: field + "/config?device=ipad-0042",
            headers: Fixture.iphone, status: 403, contains: ["MC6103"]),
        Case(
            name: "schema as JSON", target: field + "/schema", status: 200,
            contains: ["\"id\": \"com.example.field\"", "\"name\": \"ServerPort\"", "\"maximum\": 65535"]),
        Case(
            name: "manifest schema", target: "/v1/apps/com.example.fieldsync/schema", headers: Fixture.ipad,
            status: 200, contains: ["\"format\": \"manifest\"", "\"name\": \"Accounts\""]),
        Case(
            name: "update required", method: "POST", target: "/v1/update-check",
            body:
                #"{"app": "com.example.field", "version": "2.9", "platform": "ios", "osVersion": "17.4", "now": "2026-07-02T10:00:00Z"}"#,
            status: 200, contains: ["\"decision\": \"required\"", "below_min_version"]),
        Case(
            name: "update blocked version", method: "POST", target: "/v1/update-check", headers: Fixture.ipad,
            body: #"{"app": "com.example.field", "version": "3.1.0", "platform": "ios", "osVersion": "17.4"}"#,
            status: 200, contains: ["\"decision\": \"required\"", "field-3.1.0-broken-sync"]),
        Case(
            name: "OS too old", method: "POST", target: "/v1/update-check",
            body: #"{"app": "com.example.field", "version": "2.0", "platform": "ios", "osVersion": "15.7"}"#,
            status: 200, contains: ["\"decision\": \"unsupported\""]),
        Case(
            name: "update by GET",
            target: "/v1/update-check?app=com.example.field&version=3.2.1&platform=ios&osVersion=17.4",
            status: 200, contains: ["\"decision\": \"ok\""]),
        Case(
            name: "app without a policy is ok",
            target: "/v1/update-check?app=com.example.fieldsync&version=0.1&platform=macos",
            status: 200, contains: ["\"decision\": \"ok\""]),
        Case(
            name: "update check for an unknown app",
            target: "/v1/update-check?app=com.example.nope&version=1&platform=ios",
            status: 404),
        Case(
            name: "invalid request is 422 with the decision", method: "POST", target: "/v1/update-check",
            body: #"{"app": "com.example.field", "version": "three", "platform": "ios"}"#, status: 422,
            contains: ["\"decision\": \"error\"", "invalid_version"]),
        Case(
            name: "malformed JSON", method: "POST", target: "/v1/update-check", body: #"{"app": "#, status: 400,
            contains: ["the body is not JSON"]),
        Case(
            name: "policy evaluate on the catalog's profiles", method: "POST", target: "/v1/policy/evaluate",
            body: #"{"query": {"type": "app", "arg": "com.apple.mobilesafari", "at": "2026-03-10T09:00:00Z"}}"#,
            status: 200,
            contains: [
                "\"decision\": \"deny\"", "\"code\": \"KIOSK_LOCKED\"",
                "/catalog/profiles/10-app-lock.mobileconfig\",\n      \"line\": 29,\n      \"column\": 17",
                "\"identifier\": \"com.acme.kiosk.afterhours\"",
            ]),
        Case(
            name: "policy evaluate with an inline profile", method: "POST", target: "/v1/policy/evaluate",
            body:
                #"{"query": {"type": "url", "arg": "https://ads.example.com/", "at": "2026-03-10T09:00:00Z"}, "profiles": [{"name": "inline.mobileconfig", "xml": "<plist version=\"1.0\"><dict><key>PayloadType</key><string>Configuration</string><key>PayloadIdentifier</key><string>com.acme.p</string><key>PayloadUUID</key><string>5C2C9B7E-1B7A-4E27-9D4E-000000000001</string><key>PayloadVersion</key><integer>1</integer><key>PayloadContent</key><array><dict><key>PayloadType</key><string>com.apple.webcontent-filter</string><key>PayloadIdentifier</key><string>com.acme.p.wcf</string><key>PayloadUUID</key><string>5C2C9B7E-1B7A-4E27-9D4E-000000000002</string><key>PayloadVersion</key><integer>1</integer><key>FilterType</key><string>BuiltIn</string><key>DenyListURLs</key><array><string>ads.example.com</string></array></dict></array></dict></plist>"}]}"#,
            status: 200, contains: ["\"decision\": \"deny\"", "URL_DENYLISTED", "inline.mobileconfig"]),
        Case(
            name: "invalid query is 422", method: "POST", target: "/v1/policy/evaluate",
            body: #"{"query": {"type": "url", "arg": "notaurl"}}"#, status: 422, contains: ["MC5102"]),
        Case(
            name: "invalid query time is 422", method: "POST", target: "/v1/policy/evaluate",
            body: #"{"query": {"type": "kiosk", "at": "2026-03-10 09:00"}}"#, status: 422,
            contains: ["MC5105", "invalid_query"]),
        Case(
            name: "broken inline profile is 422", method: "POST", target: "/v1/policy/evaluate",
            body:
                #"{"query": {"type": "app", "arg": "a.b"}, "profiles": [{"name": "x", "xml": "<plist><array/></plist>"}]}"#,
            status: 422, contains: ["invalid_profiles", "MC5001"]),
        Case(
            name: "malformed evaluate body", method: "POST", target: "/v1/policy/evaluate",
            body: #"{"query": {"type": "teleport"}}"#, status: 400, contains: ["query.type must be one of"]),
        Case(
            name: "validate upload", method: "POST", target: "/v1/validate?app=com.example.field",
            body: #"{"ServerURL": "ftp://nope", "ServerPort": "443"}"#, status: 200,
            contains: ["MC2003", "ServerPort"]),
        Case(
            name: "validate needs an admin", method: "POST", target: "/v1/validate?app=com.example.field",
            headers: Fixture.ipad, body: "{}", status: 403),
        Case(name: "healthz needs no token", target: "/healthz", headers: [:], status: 200, contains: ["ok"]),
        Case(
            name: "readyz", target: "/readyz", headers: [:], status: 200,
            contains: ["\"catalogGeneration\": 1", "com.example.fieldsync", "\"lastReloadError\": null"]),
        Case(name: "unknown route", target: "/v2/everything", status: 404, contains: ["no route GET /v2/everything"]),
    ]

    /// One server for the whole table, through the plain client.
    @Test func everyEndpoint() async throws {
        let store = try Fixture.store()
        try await Fixture.live(store) { http, _ in
            for testCase in Self.cases {
                let response = try await http.request(
                    testCase.method, testCase.target, headers: testCase.headers, body: testCase.body)
                #expect(response.status == testCase.status, "\(testCase.name): \(response.text)")
                for text in testCase.contains {
                    #expect(response.text.contains(text), "\(testCase.name): no '\(text)' in \(response.text)")
                }
                for (name, value) in testCase.header {
                    #expect(
                        response.header(name) == value,
                        "\(testCase.name): \(name) is \(response.header(name) ?? "absent")")
                }
                if response.status >= 400 && response.status != 422 {
                    #expect(response.text.contains("\"error\""), "\(testCase.name): error shape")
                }
            }
        }
    }

    /// Strong ETags that follow the bytes, and 304 on If-None-Match, through HummingbirdTesting's client.
    @Test func etagsAndNotModified() async throws {
        let store = try Fixture.store()
        try await Fixture.live(store) { _, client in
            var headers = HTTPFields()
            headers[.authorization] = "Bearer example-device-token-ipad-0042"
            let first = try await client.execute(
                uri: "/v1/apps/com.example.field/config", method: .get, headers: headers)
            #expect(first.status == .ok)
            let etag = try #require(first.headers[.eTag])
            #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
            headers[.ifNoneMatch] = etag
            let second = try await client.execute(
                uri: "/v1/apps/com.example.field/config", method: .get, headers: headers)
            #expect(second.status == .notModified)
            #expect(second.body.readableBytes == 0)
            #expect(second.headers[.eTag] == etag)
            headers[.accept] = "application/json"
            let json = try await client.execute(
                uri: "/v1/apps/com.example.field/config", method: .get, headers: headers)
            #expect(json.status == .ok, "another representation, another ETag")
            #expect(json.headers[.eTag] != etag)
            headers[.ifNoneMatch] = "\"other\", " + (json.headers[.eTag] ?? "")
            let listed = try await client.execute(
                uri: "/v1/apps/com.example.field/config", method: .get, headers: headers)
            #expect(listed.status == .notModified)
            // Weak comparison of each listed ETag, whole: the same length with one byte changed, a prefix or a
            // longer tag do not match.
            headers[.accept] = nil
            let changed = String(etag.dropLast(2)) + (etag.dropLast().last == "0" ? "1" : "0") + "\""
            let cases: [(String, HTTPResponse.Status)] = [
                (etag, .notModified), ("W/" + etag, .notModified), ("  \(etag)\t", .notModified),
                ("\"a\",\(etag)", .notModified), ("\(etag) , \"b\"", .notModified), ("*", .notModified),
                (changed, .ok), (String(etag.dropLast(2)) + "\"", .ok), (String(etag.dropLast()) + "0\"", .ok),
                ("\"a\", \"b\"", .ok), ("W/", .ok), (",", .ok),
            ]
            for (header, status) in cases {
                headers[.ifNoneMatch] = header
                let answer = try await client.execute(
                    uri: "/v1/apps/com.example.field/config", method: .get, headers: headers)
                #expect(answer.status == status, "If-None-Match: \(header)")
            }
        }
    }

    @Test func metricsCountRequestsPerRouteAndStatus() async throws {
        let store = try Fixture.store()
        try await Fixture.live(store) { http, _ in
            _ = try await http.request("GET", "/v1/apps/com.example.field/config", headers: Fixture.admin)
            let metrics = try await http.request("GET", "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
            #expect(metrics.text.contains("mdmconf_catalog_generation"))
            #expect(metrics.text.contains(#"http_route="/v1/apps/{bundleId}/config""#))
            #expect(metrics.text.contains("http_server_request_duration"))
        }
    }
}
