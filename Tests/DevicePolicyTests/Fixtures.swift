import CivilTime
import DevicePolicy

/// Inline profiles for the engine tests: a profile with the given payload bodies (XML dict members).
enum Fixture {
    static func profile(_ identifier: String, _ payloads: [(type: String, id: String, body: String)]) -> [UInt8] {
        var content = ""
        for payload in payloads {
            content += """
                <dict>
                <key>PayloadType</key><string>\(payload.type)</string>
                <key>PayloadIdentifier</key><string>\(payload.id)</string>
                <key>PayloadUUID</key><string>\(payload.id)-uuid</string>
                \(payload.body)
                </dict>

                """
        }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
            <key>PayloadType</key><string>Configuration</string>
            <key>PayloadIdentifier</key><string>\(identifier)</string>
            <key>PayloadUUID</key><string>\(identifier)-uuid</string>
            <key>PayloadContent</key>
            <array>
            \(content)</array>
            </dict>
            </plist>
            """
        return Array(xml.utf8)
    }

    static func restrictions(_ identifier: String, _ body: String) -> [UInt8] {
        profile(identifier, [("com.apple.applicationaccess", identifier + ".r", body)])
    }

    static func strings(_ key: String, _ values: [String]) -> String {
        "<key>\(key)</key><array>" + values.map { "<string>\($0)</string>" }.joined() + "</array>"
    }

    static func appLock(_ identifier: String, app: String, options: String = "", userEnabled: String = "") -> [UInt8] {
        profile(
            identifier,
            [
                (
                    "com.apple.app.lock", identifier + ".lock",
                    "<key>App</key><dict><key>Identifier</key><string>\(app)</string>"
                        + (options.isEmpty ? "" : "<key>Options</key><dict>\(options)</dict>")
                        + (userEnabled.isEmpty ? "" : "<key>UserEnabledOptions</key><dict>\(userEnabled)</dict>")
                        + "</dict>"
                )
            ])
    }

    static func engine(_ documents: [(String, [UInt8])], skipInvalid: Bool = false) -> PolicyEngine {
        let loaded = documents.map { ProfileLoader().load($0.1, file: $0.0) }
        return PolicyEngine(profileSet: ProfileSet(documents: loaded, skipInvalid: skipInvalid))
    }

    static let at = Instant(seconds: 1_741_597_200)  // 2025-03-10T09:00:00Z, a Monday

    static func ask(
        _ engine: PolicyEngine, _ kind: PolicyQuery.Kind, _ argument: String? = nil, at: Instant = at,
        ssidHex: String? = nil, hidden: Bool = false
    ) -> PolicyAnswer {
        engine.evaluate(PolicyQuery(kind: kind, argument: argument, ssidHex: ssidHex, hidden: hidden, at: at))
    }
}

extension PolicyAnswer {
    var codes: [String] { reasons.map(\.code) }
    var lintRules: Set<String> { Set(lints.compactMap(\.diagnostic.code.rule)) }
    var diagnosticCodes: Set<String> { Set(diagnostics.map(\.diagnostic.code.code)) }
}
