import FleetTestSupport
import Foundation
import MDMConfServer
import OpenAPIKit
import Testing

/// The OpenAPI document served at `/openapi.json` as a contract: every answer of the endpoint tables (the cases of
/// EndpointTests and CheckInServerTests, and the admin pages) must be a documented status with a documented
/// content type and, for JSON, a body valid against the documented schema.
@Suite struct ContractTests {
    /// A small JSON Schema checker for what the document uses: `$ref`, `type` (one or several), `properties`,
    /// `required`, `additionalProperties`, `items`, `enum`, `const`, `anyOf`, `allOf`, `minimum`, `maximum`,
    /// `maxItems`, `pattern`.
    struct Contract {
        let document: [String: Any]

        func resolve(_ node: [String: Any]) -> [String: Any] {
            guard let reference = node["$ref"] as? String, reference.hasPrefix("#/") else { return node }
            var current: Any = document
            for part in reference.dropFirst(2).split(separator: "/") {
                current = (current as? [String: Any])?[String(part)] ?? [:]
            }
            return resolve(current as? [String: Any] ?? [:])
        }

        /// The operation of `method` at the path template matching `path`.
        func operation(_ method: String, _ path: String) -> [String: Any]? {
            let paths = document["paths"] as? [String: Any] ?? [:]
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            for (template, item) in paths {
                let parts = template.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == segments.count else { continue }
                let matches = zip(parts, segments).allSatisfy { part, segment in
                    (part.hasPrefix("{") && !segment.isEmpty) || part == segment
                }
                if matches { return (item as? [String: Any])?[method.lowercased()] as? [String: Any] }
            }
            return nil
        }

        /// Every way `value` breaks `schema`, as `path: why`.
        func violations(_ value: Any, _ schema: [String: Any], at path: String = "$") -> [String] {
            let schema = resolve(schema)
            var found: [String] = []
            if let options = schema["anyOf"] as? [[String: Any]] {
                if !options.contains(where: { violations(value, $0, at: path).isEmpty }) {
                    found.append("\(path): matches none of anyOf")
                }
            }
            for part in schema["allOf"] as? [[String: Any]] ?? [] { found += violations(value, part, at: path) }
            if let allowed = schema["enum"] as? [Any], !allowed.contains(where: { same($0, value) }) {
                found.append("\(path): \(value) is not one of \(allowed)")
            }
            if let constant = schema["const"], !same(constant, value) { found.append("\(path): is not \(constant)") }
            if let type = schema["type"] {
                let types = (type as? [String]) ?? [type as? String ?? ""]
                if !types.contains(where: { matches(value, type: $0) }) {
                    found.append("\(path): \(Self.kind(value)) is not \(types.joined(separator: "|"))")
                    return found
                }
            }
            if let object = value as? [String: Any] {
                for key in schema["required"] as? [String] ?? [] where object[key] == nil {
                    found.append("\(path): no required '\(key)'")
                }
                let properties = schema["properties"] as? [String: Any] ?? [:]
                for (key, member) in object {
                    if let property = properties[key] as? [String: Any] {
                        found += violations(member, property, at: "\(path).\(key)")
                    } else if let extra = schema["additionalProperties"] {
                        if let flag = extra as? Bool, !flag { found.append("\(path): unexpected '\(key)'") }
                        if let extraSchema = extra as? [String: Any] {
                            found += violations(member, extraSchema, at: "\(path).\(key)")
                        }
                    }
                }
            }
            if let array = value as? [Any] {
                if let limit = schema["maxItems"] as? Int, array.count > limit {
                    found.append("\(path): over \(limit) items")
                }
                if let items = schema["items"] as? [String: Any] {
                    for (index, item) in array.enumerated() {
                        found += violations(item, items, at: "\(path)[\(index)]")
                    }
                }
            }
            if let number = value as? NSNumber, Self.kind(value) != "boolean" {
                if let minimum = schema["minimum"] as? Double, number.doubleValue < minimum {
                    found.append("\(path): below \(minimum)")
                }
                if let maximum = schema["maximum"] as? Double, number.doubleValue > maximum {
                    found.append("\(path): above \(maximum)")
                }
            }
            if let text = value as? String, let pattern = schema["pattern"] as? String,
                text.range(of: pattern, options: .regularExpression) == nil
            {
                found.append("\(path): '\(text)' does not match \(pattern)")
            }
            return found
        }

        static func kind(_ value: Any) -> String {
            if value is NSNull { return "null" }
            if let number = value as? NSNumber {
                // Foundation reads true and false as NSNumbers of the Bool type.
                if "\(type(of: value))".contains("Bool") { return "boolean" }
                return number.stringValue.contains(".") || number.stringValue.contains("e") ? "number" : "integer"
            }
            if value is String { return "string" }
            if value is [Any] { return "array" }
            if value is [String: Any] { return "object" }
            return "unknown"
        }

        func matches(_ value: Any, type: String) -> Bool {
            let kind = Self.kind(value)
            return kind == type || (type == "number" && kind == "integer")
        }

        func same(_ lhs: Any, _ rhs: Any) -> Bool {
            if let a = lhs as? String, let b = rhs as? String { return a == b }
            if let a = lhs as? NSNumber, let b = rhs as? NSNumber { return a == b }
            return lhs is NSNull && rhs is NSNull
        }

        /// Why `response` to `method target` is outside the document; empty when it conforms.
        func check(_ method: String, _ target: String, _ response: RawHTTP.Response) -> [String] {
            let path = String(target.prefix { $0 != "?" })
            guard let operation = operation(method, path) else {
                // A route the API does not have: 404 (or 405 for another method of a real path) in the error shape.
                guard response.status == 404 || response.status == 405,
                    let body = try? JSONSerialization.jsonObject(with: Data(response.body))
                else { return ["\(method) \(path) is not in the document (\(response.status))"] }
                return violations(body, ["$ref": "#/components/schemas/Error"]).map { "\(method) \(path): \($0)" }
            }
            let responses = operation["responses"] as? [String: Any] ?? [:]
            guard let documented = responses[String(response.status)] as? [String: Any] else {
                return ["\(method) \(path): status \(response.status) is not documented (\(responses.keys.sorted()))"]
            }
            let answer = resolve(documented)
            guard let content = answer["content"] as? [String: Any] else { return [] }
            let type =
                (response.header("Content-Type") ?? "").split(separator: ";").first.map {
                    $0.trimmingCharacters(in: .whitespaces)
                } ?? ""
            guard let media = content[type] as? [String: Any] else {
                return ["\(method) \(path) \(response.status): content type '\(type)' is not documented"]
            }
            guard type == "application/json", let schema = media["schema"] as? [String: Any] else { return [] }
            guard let body = try? JSONSerialization.jsonObject(with: Data(response.body), options: [.fragmentsAllowed])
            else { return ["\(method) \(path) \(response.status): the body is not JSON"] }
            return violations(body, schema).map { "\(method) \(path) \(response.status): \($0)" }
        }
    }

    static func contract(_ http: RawHTTP) async throws -> Contract {
        let response = try await http.request("GET", "/openapi.json")
        #expect(response.status == 200)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        return Contract(document: document)
    }

    @Test func everyEndpointAnswerConformsToTheDocument() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            let contract = try await Self.contract(http)
            for testCase in EndpointTests.cases {
                let response = try await http.request(
                    testCase.method, testCase.target, headers: testCase.headers, body: testCase.body)
                let problems = contract.check(testCase.method, testCase.target, response)
                #expect(problems.isEmpty, "\(testCase.name): \(problems)")
            }
        }
    }

    @Test func everyFleetAnswerConformsToTheDocument() async throws {
        let fleet = try await CheckInServerTests.fleet()
        try await Fixture.live(try Fixture.store(), fleet: fleet) { http, _ in
            let contract = try await Self.contract(http)
            var targets = CheckInServerTests.cases.map { ($0.method, $0.target, $0.headers, $0.body, $0.name) }
            for target in [
                "/v1/fleet/summary", "/v1/fleet/devices?limit=2", "/v1/fleet/devices/iphone-0117",
                "/v1/fleet/trend?days=3",
                "/v1/fleet/devices?status=happy",
            ] {
                targets.append(("GET", target, Fixture.admin, nil, target))
            }
            for (method, target, headers, body, name) in targets {
                let response = try await http.request(method, target, headers: headers, body: body)
                let problems = contract.check(method, target, response)
                #expect(problems.isEmpty, "\(name): \(problems)")
            }
        }
        try await fleet.store?.close()
    }

    @Test func undeclaredMethodsAre405WithAllow() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            let contract = try await Self.contract(http)
            for (method, target, allow) in [
                ("DELETE", "/v1/apps/com.example.field/config", "GET"), ("PUT", "/v1/update-check", "GET, POST"),
                ("GET", "/v1/checkin", "POST"), ("POST", "/healthz", "GET"), ("PATCH", "/admin", "GET"),
            ] {
                let response = try await http.request(method, target, headers: Fixture.admin)
                #expect(response.status == 405, "\(method) \(target)")
                #expect(response.header("Allow") == allow, "\(method) \(target)")
                #expect(response.text.contains("method_not_allowed"))
                #expect(contract.operation(method, target) == nil)
            }
            #expect(try await http.request("GET", "/v1/nothing/here", headers: Fixture.admin).status == 404)
        }
    }

    /// The checker is not a rubber stamp: answers outside the document are caught.
    @Test func theCheckerFindsWhatIsOutsideTheDocument() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            let contract = try await Self.contract(http)
            func response(_ status: Int, _ type: String, _ body: String) -> RawHTTP.Response {
                RawHTTP.Response(status: status, headers: [("Content-Type", type)], body: Array(body.utf8))
            }
            let good = try await http.request(
                "GET", "/v1/update-check?app=com.example.field&version=2.3.1&platform=ios", headers: Fixture.admin)
            #expect(contract.check("GET", "/v1/update-check", good).isEmpty)
            var changed = good.text.replacingOccurrences(of: "\"decision\": \"", with: "\"decision\": \"maybe-")
            #expect(!contract.check("GET", "/v1/update-check", response(200, "application/json", changed)).isEmpty)
            changed = good.text.replacingOccurrences(of: "\"exitCode\"", with: "\"exit\"")
            #expect(
                contract.check("GET", "/v1/update-check", response(200, "application/json", changed)).contains {
                    $0.contains("no required 'exitCode'")
                })
            #expect(!contract.check("GET", "/v1/update-check", response(418, "application/json", "{}")).isEmpty)
            #expect(!contract.check("GET", "/v1/update-check", response(200, "text/html", "<p>")).isEmpty)
            #expect(
                !contract.check("GET", "/healthz", response(200, "application/json", #"{"status": "fine"}"#)).isEmpty)
        }
    }

    /// The document itself: every operation has an id and responses, every `$ref` resolves.
    @Test func theDocumentIsWhole() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            let contract = try await Self.contract(http)
            let paths = try #require(contract.document["paths"] as? [String: Any])
            #expect(paths.count >= 25)
            var ids = Set<String>()
            for (path, item) in paths {
                for (method, value) in try #require(item as? [String: Any]) {
                    let operation = try #require(value as? [String: Any], "\(method) \(path)")
                    let id = try #require(operation["operationId"] as? String, "\(method) \(path)")
                    #expect(ids.insert(id).inserted, "duplicate operationId \(id)")
                    #expect((operation["responses"] as? [String: Any])?.isEmpty == false, "\(method) \(path)")
                }
            }
            let text = OpenAPIText.references(in: contract.document)
            for reference in text {
                let resolved = contract.resolve(["$ref": reference])
                #expect(!resolved.isEmpty, "\(reference) does not resolve")
            }
        }
    }

    /// The served document is the file `Sources/MDMConfServer/OpenAPI/openapi.json` byte for byte, OpenAPIKit reads
    /// and validates it, and every operation's parameters are references to `components/parameters`, each defined
    /// once.
    @Test func theDocumentIsWholeForOpenAPIKit() async throws {
        let file = Fixture.packageRoot.appendingPathComponent("Sources/MDMConfServer/OpenAPI/openapi.json")
        let onDisk = try Data(contentsOf: file)
        try await Fixture.live(try Fixture.store()) { http, _ in
            let response = try await http.request("GET", "/openapi.json")
            #expect(Data(response.body) == onDisk, "the served document is not the file")
        }
        let document = try JSONDecoder().decode(OpenAPI.Document.self, from: onDisk)
        try document.validate()
        #expect(document.paths.count >= 25)

        let raw = try #require(try JSONSerialization.jsonObject(with: onDisk) as? [String: Any])
        let components = try #require((raw["components"] as? [String: Any])?["parameters"] as? [String: Any])
        let definitions = try components.values.map {
            String(decoding: try JSONSerialization.data(withJSONObject: $0, options: .sortedKeys), as: UTF8.self)
        }
        #expect(Set(definitions).count == definitions.count, "a parameter is defined twice under components")
        var used = Set<String>()
        for (path, item) in try #require(raw["paths"] as? [String: Any]) {
            for (method, operation) in try #require(item as? [String: Any]) {
                for parameter in (operation as? [String: Any])?["parameters"] as? [[String: Any]] ?? [] {
                    let reference = try #require(
                        parameter["$ref"] as? String, "\(method) \(path) writes a parameter out inline")
                    #expect(reference.hasPrefix("#/components/parameters/"), "\(method) \(path): \(reference)")
                    used.insert(String(reference.dropFirst("#/components/parameters/".count)))
                }
            }
        }
        #expect(
            used == Set(components.keys), "parameters defined but not used: \(Set(components.keys).subtracting(used))")
    }

    /// Every code the server answers refusals with is in the diagnostics reference's table, once.
    @Test func requestCodesAreInTheReference() throws {
        let reference = try String(
            contentsOf: Fixture.packageRoot.appendingPathComponent(
                "Sources/MDMDiagnostics/MDMDiagnostics.docc/DiagnosticCodes.md"), encoding: .utf8)
        #expect(Set(RequestCode.all.map(\.code)).count == RequestCode.all.count)
        for code in RequestCode.all {
            #expect(code.code.hasPrefix("MC61"))
            #expect(reference.contains("| \(code.code) | \(code.name) |"), "\(code.code) is not in the reference")
        }
    }
}

enum OpenAPIText {
    /// Every `$ref` value in a JSON tree.
    static func references(in node: Any) -> [String] {
        if let object = node as? [String: Any] {
            let own = (object["$ref"] as? String).map { [$0] } ?? []
            return own + object.values.flatMap(references)
        }
        if let array = node as? [Any] { return array.flatMap(references) }
        return []
    }
}
