import Foundation
import MDMConf
import MDMDiagnostics
import TestScratch
import Testing

/// A small catalog written to a temporary folder, changed per case.
struct CatalogFixture {
    let root: URL

    static let schema = """
        <managedAppConfiguration><version>1</version><bundleId>com.acme.app</bundleId><dict>
        <string keyName="ServerURL"><constraint nullable="false" pattern="https://.+"/></string>
        <string keyName="UserEmail"><constraint pattern="[^@ ]+@[^@ ]+"/></string>
        <integer keyName="Port"><constraint min="1" max="65535"/></integer>
        </dict></managedAppConfiguration>
        """

    static func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(body)
        </plist>
        """
    }

    static let config = plist(
        "<dict><key>ServerURL</key><string>https://acme.example</string><key>UserEmail</key><string>$EMAIL</string><key>Port</key><integer>443</integer></dict>"
    )
    static let devices = plist(
        """
        <dict><key>dev-1</key><dict><key>email</key><string>a@example.com</string><key>serialNumber</key><string>SN0001</string>
        <key>groups</key><array><string>night</string><string>blue</string></array></dict>
        <key>dev-2</key><dict><key>email</key><string>b@example.com</string></dict></dict>
        """)

    /// The valid base: one app with a schema, a config and a group variant; an inventory of two devices.
    init(changes: [String: String?] = [:]) throws {
        root = Scratch.url("catalog-\(UUID().uuidString)")
        var files: [String: String?] = [
            "apps/com.acme.app/schema.xml": Self.schema, "apps/com.acme.app/config.plist": Self.config,
            "apps/com.acme.app/configs/blue.plist": Self.config.replacingOccurrences(of: "443", with: "8443"),
            "devices.plist": Self.devices,
        ]
        for (path, contents) in changes { files[path] = contents }
        for case (let path, let contents?) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
        }
    }

    func load() -> Result<Catalog, CatalogLoader.Failure> { CatalogLoader().load(root.path) }
}

struct CatalogTests {
    static let exampleCatalog = BundledContentTests.packageRoot.appendingPathComponent("Examples/catalog").path

    /// A platform name is Android's whatever its ASCII case; any other name, or none, is Apple's.
    @Test(arguments: [
        ("android", ConfigPlatform.android), ("Android", .android), ("ANDROID", .android), ("aNdRoId", .android),
        ("ios", .apple), ("macOS", .apple), ("androi", .apple), ("android ", .apple), (" android", .apple),
        ("andro1d", .apple), ("androïd", .apple), ("", .apple), ("androidtv", .apple),
    ] as [(String, ConfigPlatform)])
    func platformFamilies(name: String, family: ConfigPlatform) {
        #expect(ConfigPlatform(name) == family)
    }

    @Test func noPlatformIsApple() { #expect(ConfigPlatform(nil) == .apple) }

    /// What a new user does first: `cp -r Examples/catalog my-catalog` (links copied as links). The copy loads.
    @Test func aPlainCopyOfTheExampleCatalogLoads() throws {
        let copy = Scratch.url("my-catalog-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: Self.exampleCatalog), to: copy)
        let catalog = try CatalogLoader().load(copy.path).get()
        #expect(catalog.appIDs == ["com.example.field", "com.example.fieldsync"])
    }

    /// A relative link that leads nowhere after a copy is reported as a link, with where it points.
    @Test func danglingLinksAreSaidToBeLinks() throws {
        let copy = Scratch.url("linked-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: Self.exampleCatalog), to: copy)
        let manager = FileManager.default
        for (path, target) in [
            ("apps/com.example.field/schema.xml", "../../../app/schema.xml"),
            ("apps/com.example.fieldsync/config.plist", "../../shared/config.plist"), ("profiles", "../device-policy/profiles"),
        ] {
            try manager.removeItem(at: copy.appendingPathComponent(path))
            try manager.createSymbolicLink(atPath: copy.appendingPathComponent(path).path, withDestinationPath: target)
        }
        guard case .failure(let failure) = CatalogLoader().load(copy.path) else {
            Issue.record("a catalog with dangling links loaded")
            return
        }
        let messages = failure.errors.map(\.message)
        #expect(messages.contains("apps/com.example.field/schema.xml is a symbolic link to '../../../app/schema.xml', which does not exist"), "\(messages)")
        #expect(messages.contains("apps/com.example.fieldsync/config.plist is a symbolic link to '../../shared/config.plist', which does not exist"))
        #expect(messages.contains("profiles is a symbolic link to '../device-policy/profiles', which does not exist"))
        #expect(!messages.contains { $0.contains("has no schema.xml") })
        #expect(failure.errors.first { $0.message.hasPrefix("profiles") }?.hint?.contains("cp -rL") == true)
    }

    /// Examples/catalog loads with no warning; every file in it is used.
    @Test func exampleCatalogLoadsCleanly() throws {
        let catalog = try CatalogLoader().load(Self.exampleCatalog).get()
        #expect(catalog.warnings.map(\.message) == [])
        #expect(catalog.appIDs == ["com.example.field", "com.example.fieldsync"])
        #expect(
            catalog.devices.keys.sorted() == [
                "ipad-0042", "ipad-0300", "iphone-0117", "iphone-0201", "iphone-0202", "iphone-0400", "pixel-0500",
            ])
        #expect(catalog.tokens?.count == 3)
        // One folder serves both platforms: the plist to Apple devices, JSON to the Android one.
        let sync = try #require(catalog.apps["com.example.fieldsync"])
        #expect(sync.servesApple && sync.android?.schema.format == .android)
        let pixel = sync.config(forDevice: "pixel-0500", platform: .android)
        #expect(String(decoding: pixel.json.bytes, as: UTF8.self).contains("\"device_tag\": \"serial-2B281FDH3000K5\""))
        #expect(String(decoding: sync.config(forDevice: "pixel-0500").xml.bytes, as: UTF8.self).contains("<key>Accounts</key>"))
        #expect(catalog.devices["pixel-0500"]?.platform == .android)
        #expect(catalog.policyEngine.profileSet.documents.count == 6)
        let field = try #require(catalog.apps["com.example.field"])
        #expect(field.hasUpdatePolicy)
        #expect(field.variants == ["warehouse"])
        let ipad = try #require(field.deviceConfigs["ipad-0042"])
        #expect(ipad.variant == "warehouse")
        let text = String(decoding: ipad.xml.bytes, as: UTF8.self)
        #expect(text.contains("<string>dock.team@example.com</string>") && text.contains("DMPXK2ABCD42"))
        #expect(String(decoding: field.defaultConfig.xml.bytes, as: UTF8.self).contains("<string>$EMAIL</string>"))
        #expect(field.deviceConfigs["iphone-0117"]?.variant == nil)
        #expect(catalog.apps["com.example.fieldsync"]?.hasUpdatePolicy == false)
    }

    @Test func tokensAreMatchedByTheirHashOnly() throws {
        let catalog = try CatalogLoader().load(Self.exampleCatalog).get()
        #expect(catalog.scope(ofBearer: "example-admin-token-c0ffee") == .admin)
        #expect(catalog.scope(ofBearer: "example-device-token-ipad-0042") == .device("ipad-0042"))
        #expect(catalog.scope(ofBearer: "example-admin-token-c0ffe") == nil)
        #expect(catalog.scope(ofBearer: "a59218989250c5074ae78acc1d43e3c36df2afc008355872fe2eb6fbfe69090c") == nil)
        #expect(catalog.scope(ofBearer: "") == nil)
    }

    /// Variables per device, variants by the first matching group, ETags that follow the bytes.
    @Test func deviceConfigurations() throws {
        let catalog = try CatalogFixture().load().get()
        let app = try #require(catalog.apps["com.acme.app"])
        let first = try #require(app.deviceConfigs["dev-1"])
        let second = try #require(app.deviceConfigs["dev-2"])
        #expect(first.variant == "blue")
        #expect(second.variant == nil)
        #expect(String(decoding: first.json.bytes, as: UTF8.self).contains("\"Port\": 8443"))
        #expect(String(decoding: second.json.bytes, as: UTF8.self).contains("\"UserEmail\": \"b@example.com\""))
        #expect(first.xml.etag != second.xml.etag && first.xml.etag != first.json.etag)
        #expect(first.xml.etag.hasPrefix("\"") && first.xml.etag.count == 34)
        let again = try CatalogFixture().load().get()
        #expect(again.apps["com.acme.app"]?.deviceConfigs["dev-1"]?.xml.etag == first.xml.etag)
    }

    static let broken: [(name: String, changes: [String: String?], codes: [String])] = [
        ("no schema", ["apps/com.acme.app/schema.xml": nil], ["MC6004"]),
        (
            "two schemas",
            [
                "apps/com.acme.app/schema.plist": CatalogFixture.plist(
                    "<dict><key>pfm_domain</key><string>com.acme.app</string></dict>")
            ],
            ["MC6004"]
        ),
        (
            "schema of another app",
            [
                "apps/com.other.app/schema.xml": CatalogFixture.schema,
                "apps/com.other.app/config.plist": CatalogFixture.config,
            ], ["MC6005"]
        ),
        ("not a bundle id", ["apps/acme app/config.plist": CatalogFixture.config], ["MC6003"]),
        ("no config", ["apps/com.acme.app/config.plist": nil], ["MC6006"]),
        (
            "config breaks the schema",
            ["apps/com.acme.app/config.plist": CatalogFixture.config.replacingOccurrences(of: "443", with: "70000")],
            ["MC2"]
        ),
        ("variant not XML", ["apps/com.acme.app/configs/blue.plist": "<plist><dict><key>a</key></plist>"], ["MC1"]),
        ("variant name", ["apps/com.acme.app/configs/blue sky.plist": CatalogFixture.config], ["MC6011"]),
        (
            "device value breaks a pattern",
            [
                "devices.plist": CatalogFixture.plist(
                    "<dict><key>dev-1</key><dict><key>email</key><string>not an email</string></dict></dict>")
            ],
            ["MC6015"]
        ),
        (
            "inventory types",
            [
                "devices.plist": CatalogFixture.plist(
                    "<dict><key>dev 1</key><dict/><key>dev-2</key><dict><key>email</key><integer>1</integer><key>groups</key><string>a</string></dict></dict>"
                )
            ],
            ["MC6008", "MC6008", "MC6008"]
        ),
        (
            "tokens",
            [
                "tokens.plist": CatalogFixture.plist(
                    """
                    <dict><key>secret-in-clear</key><dict><key>scope</key><string>admin</string></dict>
                    <key>\(String(repeating: "a", count: 64))</key><dict><key>scope</key><string>device</string><key>device</key><string>dev-9</string></dict>
                    <key>\(String(repeating: "b", count: 64))</key><dict><key>scope</key><string>root</string></dict></dict>
                    """)
            ],
            ["MC6009", "MC6009", "MC6009"]
        ),
        (
            "settings",
            [
                "mdmconf-server.plist": CatalogFixture.plist(
                    "<dict><key>maxBodySize</key><integer>0</integer><key>cacheMaxAgeSeconds</key><integer>5</integer></dict>"
                )
            ],
            ["MC6010", "MC6010"]
        ),
        (
            "missing tokens file",
            [
                "mdmconf-server.plist": CatalogFixture.plist(
                    "<dict><key>tokensFile</key><string>secrets.plist</string></dict>")
            ],
            ["MC6009"]
        ),
        (
            "update policy",
            [
                "apps/com.acme.app/update-policy.plist": CatalogFixture.plist(
                    "<dict><key>schemaVersion</key><integer>1</integer><key>policies</key><array><dict><key>id</key><string>p</string><key>app</key><string>com.other</string><key>minVersion</key><string>x</string></dict></array></dict>"
                )
            ],
            ["MC4009"]
        ),
        ("profile", ["profiles/bad.mobileconfig": CatalogFixture.plist("<array/>")], ["MC5001"]),
        (
            "empty",
            [
                "apps/com.acme.app/schema.xml": nil, "apps/com.acme.app/config.plist": nil,
                "apps/com.acme.app/configs/blue.plist": nil, "devices.plist": nil,
                "README.md": "nothing here yet",
            ],
            ["MC6013"]
        ),
    ]

    /// Each broken catalog is refused as a whole, with its findings (and the findings of other files too).
    @Test(arguments: broken.indices)
    func brokenCatalogIsRefusedWithEveryFinding(_ index: Int) throws {
        let (name, changes, codes) = Self.broken[index]
        let fixture = try CatalogFixture(changes: changes)
        switch fixture.load() {
        case .success: Issue.record("\(name): the catalog was accepted")
        case .failure(let failure):
            let found = failure.errors.map(\.code.code)
            for code in Set(codes) {
                let wanted = codes.filter { $0 == code }.count
                let matching = found.filter { $0.hasPrefix(code) }.count
                #expect(
                    matching >= wanted,
                    "\(name): wanted \(wanted) × \(code), found \(found) \(failure.errors.map(\.message))")
            }
            for error in failure.errors { #expect(error.location?.file.hasPrefix(fixture.root.path) == true) }
        }
    }

    @Test func aMissingFolderIsNotACatalog() throws {
        guard case .failure(let failure) = CatalogLoader().load("/nonexistent/catalog") else {
            Issue.record("loaded")
            return
        }
        #expect(failure.errors.map(\.code.code) == ["MC6001"])
    }

    /// Warnings never refuse a catalog: a stray file, a variant no device uses.
    @Test func warningsKeepTheCatalog() throws {
        let fixture = try CatalogFixture(changes: [
            "apps/com.acme.app/confg.plist": CatalogFixture.config, "device.plist": CatalogFixture.devices,
            "apps/com.acme.app/configs/green.plist": CatalogFixture.config,
        ])
        let catalog = try fixture.load().get()
        #expect(catalog.warnings.map(\.code.code).sorted() == ["MC6007", "MC6007", "MC6012"])
    }

    /// Every MC6xxx code is in the diagnostics reference's table with its name, and codes are unique.
    @Test func catalogCodesAreInTheReference() throws {
        let reference = try String(
            contentsOf: BundledContentTests.packageRoot.appendingPathComponent(
                "Sources/MDMDiagnostics/MDMDiagnostics.docc/DiagnosticCodes.md"), encoding: .utf8)
        #expect(Set(CatalogCode.all.map(\.code)).count == CatalogCode.all.count)
        for code in CatalogCode.all {
            #expect(code.code.hasPrefix("MC6"))
            #expect(reference.contains("| \(code.code) | \(code.name) |"), "\(code.code) is not in the reference")
        }
    }
}
