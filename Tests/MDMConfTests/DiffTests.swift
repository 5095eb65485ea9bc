import Foundation
import MDMConf
import MDMDiagnostics
import PropertyList
import TestScratch
import Testing

/// The semantic diff: a table of value pairs, and the text an admin pastes into a change ticket, pinned for a
/// realistic change of the example catalog.
struct DiffTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var old: String
        var new: String
        var lines: [String]
        var testDescription: String { name }
    }

    static func plist(_ body: String) -> PlistValue {
        let text = "<?xml version=\"1.0\"?><plist version=\"1.0\">\(body)</plist>"
        return PropertyListReader().read(Array(text.utf8), file: "case.plist").root?.value ?? .string("unreadable")
    }

    static let cases: [Case] = [
        Case(
            name: "identical", old: "<dict><key>A</key><integer>1</integer></dict>",
            new: "<dict><key>A</key><integer>1</integer></dict>", lines: []),
        Case(
            name: "scalar change, added and removed keys",
            old: "<dict><key>Interval</key><integer>30</integer><key>Theme</key><string>dark</string></dict>",
            new: "<dict><key>Interval</key><integer>60</integer><key>Region</key><string>EU</string></dict>",
            lines: ["- Theme: 'dark'", "~ Interval: 30 → 60", "+ Region: 'EU'"]),
        Case(
            name: "nested dictionaries",
            old:
                "<dict><key>Sync</key><dict><key>Server</key><dict><key>Port</key><integer>443</integer></dict></dict></dict>",
            new:
                "<dict><key>Sync</key><dict><key>Server</key><dict><key>Port</key><integer>8443</integer><key>TLS</key><true/></dict></dict></dict>",
            lines: ["~ Sync.Server.Port: 443 → 8443", "+ Sync.Server.TLS: true"]),
        Case(
            name: "type change",
            old: "<dict><key>Port</key><string>443</string></dict>",
            new: "<dict><key>Port</key><integer>443</integer></dict>",
            lines: ["~ Port: '443' (string) → 443 (integer)"]),
        Case(
            name: "array of dictionaries by id: changed, added, removed, moved",
            old: """
                <dict><key>Servers</key><array>\
                <dict><key>Name</key><string>EU</string><key>URL</key><string>https://eu.example.com</string></dict>\
                <dict><key>Name</key><string>US</string><key>URL</key><string>https://us.example.com</string></dict>\
                <dict><key>Name</key><string>APAC</string><key>URL</key><string>https://ap.example.com</string></dict>\
                </array></dict>
                """,
            new: """
                <dict><key>Servers</key><array>\
                <dict><key>Name</key><string>US</string><key>URL</key><string>https://us2.example.com</string></dict>\
                <dict><key>Name</key><string>EU</string><key>URL</key><string>https://eu.example.com</string></dict>\
                <dict><key>Name</key><string>LATAM</string><key>URL</key><string>https://la.example.com</string></dict>\
                </array></dict>
                """,
            lines: [
                "- Servers[Name=APAC]: {2 keys}", "↕ Servers[Name=US]: moved from [1] to [0]",
                "~ Servers[Name=US].URL: 'https://us.example.com' → 'https://us2.example.com'",
                "+ Servers[Name=LATAM]: {2 keys}",
            ]),
        Case(
            name: "array without ids: by position",
            old: "<dict><key>Regions</key><array><string>EU</string><string>US</string></array></dict>",
            new:
                "<dict><key>Regions</key><array><string>EU</string><string>LATAM</string><string>US</string></array></dict>",
            lines: ["~ Regions[1]: 'US' → 'LATAM'", "+ Regions[2]: 'US'"]),
        Case(
            name: "secret-looking names are redacted",
            old: "<dict><key>ServiceAccount</key><dict><key>Password</key><string>hunter2</string></dict></dict>",
            new: "<dict><key>ServiceAccount</key><dict><key>Password</key><string>correct horse</string></dict></dict>",
            lines: ["~ ServiceAccount.Password: <redacted> → <redacted>"]),
        Case(
            name: "variables are compared as written",
            old: "<dict><key>UserEmail</key><string>$EMAIL</string></dict>",
            new: "<dict><key>UserEmail</key><string>{{mail}}</string></dict>",
            lines: ["~ UserEmail: '$EMAIL' → '{{mail}}'"]),
        Case(
            name: "profile payloads by PayloadIdentifier",
            old: """
                <dict><key>PayloadContent</key><array>\
                <dict><key>PayloadIdentifier</key><string>com.example.wifi</string><key>SSID_STR</key><string>Corp</string></dict>\
                </array></dict>
                """,
            new: """
                <dict><key>PayloadContent</key><array>\
                <dict><key>PayloadIdentifier</key><string>com.example.wifi</string><key>SSID_STR</key><string>Corp-5G</string></dict>\
                </array></dict>
                """,
            lines: ["~ PayloadContent[PayloadIdentifier=com.example.wifi].SSID_STR: 'Corp' → 'Corp-5G'"]),
    ]

    @Test(arguments: cases)
    func valuePairs(_ testCase: Case) {
        let changes = PlistDiff().changes(from: Self.plist(testCase.old), to: Self.plist(testCase.new))
        #expect(changes.map(\.line) == testCase.lines)
        #expect(!changes.contains { $0.line.contains("hunter2") || $0.line.contains("correct horse") })
    }

    /// A schema's sensitive keys are redacted whatever their names, in text and JSON.
    @Test func schemaSensitiveKeys() throws {
        let diff = PlistDiff(isSensitive: { $0.description == "EnrollmentCode" })
        let changes = diff.changes(
            from: Self.plist("<dict><key>EnrollmentCode</key><string>A1B2</string></dict>"),
            to: Self.plist("<dict><key>EnrollmentCode</key><string>C3D4</string></dict>"))
        #expect(changes.map(\.line) == ["~ EnrollmentCode: <redacted> → <redacted>"])
        let json = changes[0].json.serialized()
        #expect(!json.contains("A1B2") && !json.contains("C3D4") && json.contains("<redacted>"))
    }

    /// The example catalog with a week's typical change: the sync interval, the floor of the field app, a new
    /// group variant for the sales devices. The text is pinned as an admin would paste it.
    @Test func exampleCatalogChangeTicket() throws {
        let root = Scratch.url("diff-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let example = BundledContentTests.packageRoot.appendingPathComponent("Examples/catalog")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let changed = root.appendingPathComponent("new")
        try FileManager.default.copyItem(at: example, to: changed)
        func edit(_ path: String, _ old: String, _ new: String) throws {
            let file = changed.appendingPathComponent(path)
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains(old), "\(path) has no \(old)")
            try text.replacingOccurrences(of: old, with: new).write(to: file, atomically: true, encoding: .utf8)
        }
        try edit(
            "apps/com.example.field/config.plist", "<key>SyncIntervalMinutes</key>\n\t<integer>30</integer>",
            "<key>SyncIntervalMinutes</key>\n\t<integer>15</integer>")
        try edit("apps/com.example.field/update-policy.plist", "<string>3.0</string>", "<string>3.1</string>")
        try FileManager.default.copyItem(
            at: changed.appendingPathComponent("apps/com.example.field/configs/warehouse.plist"),
            to: changed.appendingPathComponent("apps/com.example.field/configs/sales.plist"))

        let old = try CatalogFiles.read(folder: example.path)
        let new = try CatalogFiles.read(folder: changed.path)
        let diff = CatalogDiff.compare(
            old, new, oldCatalog: try CatalogLoader().load(example.path).get(),
            newCatalog: try CatalogLoader().load(changed.path).get())
        #expect(
            diff.text == """
                apps/com.example.field/config.plist  [com.example.field: configuration]
                  ~ SyncIntervalMinutes: 30 → 15
                apps/com.example.field/configs/sales.plist (new file)  [com.example.field: group sales]
                  + ServerURL: 'https://warehouse.field.example.com/api'
                  + ServerPort: 8443
                  + UserEmail: '$EMAIL'
                  + DeviceSerial: '$SERIALNUMBER'
                  + AllowOfflineMode: false
                  + SyncIntervalMinutes: 15
                  + AllowedRegions: ['EU', 'US']
                  + Theme: 'dark'
                apps/com.example.field/update-policy.plist  [com.example.field: update policy]
                  ~ policies[id=field-3.0-floor].minVersion: '3.0' → '3.1'
                who is affected:
                  com.example.field: 5 of 7 inventory devices get different configuration bytes (config.plist 3, sales 2)
                  com.example.fieldsync: no device gets different configuration bytes
                3 files differ, 10 changes

                """)
        let same = CatalogDiff.compare(old, old)
        #expect(same.isEmpty && same.text == "no differences\n")
        #expect(old.contentHash == (try CatalogFiles.read(folder: example.path)).contentHash)
        #expect(old.contentHash != new.contentHash)
    }
}
