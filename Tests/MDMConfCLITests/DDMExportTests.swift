import FleetTestSupport
import Foundation
import MDMConf
import PropertyList
import TestScratch
import Testing

private let appleRepository = CLIProcess.packageRoot.deletingLastPathComponent()
    .appendingPathComponent("shared/corpus/apple-device-management").path

/// `mdmconf ddm export`: each Apple device of the example catalog gets a declaration set that Apple's schemas accept,
/// whose assets are the configurations the HTTP channel serves, and whose tokens move exactly with the content.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: appleRepository), "corpus not found beside the project"))
struct DDMExportTests {
    static let base = "https://mdm.example.com:8443"
    static let timestamp = "2026-11-26T09:00:00Z"

    static func export(_ catalog: String, _ extra: [String] = []) throws -> (CLIProcess.Result, URL) {
        let out = Scratch.url("ddm-\(UUID().uuidString)")
        let result = try CLIProcess.run(
            ["ddm", "export", catalog, "--out", out.path, "--base-url", base, "--timestamp", timestamp] + extra)
        return (result, out)
    }

    static func json(_ url: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
    }

    /// Every Apple device of the inventory has a set (the Android one has none); every declaration validates against
    /// Apple's schemas (the corpus copy, with the project's own YAML for AppConfig first) on iOS 18.4, and not on 18.1,
    /// where AppConfig does not exist yet.
    @Test func everyDeclarationValidates() throws {
        let (result, out) = try Self.export("Examples/catalog")
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let devices = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(devices == ["ipad-0042", "ipad-0300", "iphone-0117", "iphone-0201", "iphone-0202", "iphone-0400"])
        let path = ["MDMCONF_SCHEMA_PATH": "Schemas/apple:" + appleRepository]
        for device in devices {
            let folder = out.appendingPathComponent("\(device)/declarations").path
            let ok = try CLIProcess.run(
                ["validate", folder, "--platform", "iOS", "--os-version", "18.4", "--enrollment", "supervised"],
                environment: path)
            #expect(ok.status == 0, "\(device): \(ok.stdout)")
            #expect(ok.stderr.contains("5 files checked: 0 errors, 0 warnings"), "\(ok.stderr)")
        }
        let old = try CLIProcess.run(
            ["validate", out.appendingPathComponent("iphone-0117/declarations").path, "--platform", "iOS", "--os-version", "18.1"],
            environment: path)
        #expect(old.status == 1 && old.stdout.contains("'AppConfig' needs iOS 18.4 or later"), "\(old.stdout)")
        let android = try CLIProcess.run(
            ["ddm", "export", "Examples/catalog", "--out", out.path, "--base-url", Self.base, "--device", "pixel-0500"])
        #expect(android.status == 64 && android.stderr.contains("Android device"))
    }

    /// The asset holds the bytes `GET /v1/apps/{app}/config` serves the device, hashed as declared, named by the
    /// app's declaration; the items and tokens files agree with the declarations.
    @Test func assetsAreTheServedBytes() throws {
        let (result, out) = try Self.export("Examples/catalog", ["--device", "iphone-0117"])
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let catalog = try CatalogLoader().load("Examples/catalog").get()
        let set = out.appendingPathComponent("iphone-0117")
        for app in ["com.example.field", "com.example.fieldsync"] {
            let asset = try Self.json(set.appendingPathComponent("declarations/io.mdmconf.asset.\(app).json"))
            let reference = try #require((asset["Payload"] as? [String: Any])?["Reference"] as? [String: Any])
            let hash = try #require(reference["Hash-SHA-256"] as? String)
            let bytes = try Data(contentsOf: set.appendingPathComponent("assets/\(hash).plist"))
            #expect(ContentHash.hex(Array(bytes)) == hash)
            #expect(reference["Size"] as? Int == bytes.count)
            #expect(reference["DataURL"] as? String == "\(Self.base)/v1/ddm/assets/\(hash).plist")
            #expect(reference["ContentType"] as? String == "application/x-plist")
            let served = try #require(catalog.apps[app]?.config(forDevice: "iphone-0117"))
            #expect(Array(bytes) == served.xml.bytes, "\(app): the asset is the configuration the device is served")
            let managed = try Self.json(set.appendingPathComponent("declarations/io.mdmconf.app.\(app).json"))
            let payload = try #require(managed["Payload"] as? [String: Any])
            #expect((payload["AppConfig"] as? [String: Any])?["DataAssetReference"] as? String == "io.mdmconf.asset.\(app)")
            #expect(payload["BundleID"] as? String == app)
        }
        let items = try Self.json(set.appendingPathComponent("declaration-items.json"))
        let tokens = try Self.json(set.appendingPathComponent("tokens.json"))
        let sync = try #require(tokens["SyncTokens"] as? [String: Any])
        #expect(sync["DeclarationsToken"] as? String == items["DeclarationsToken"] as? String)
        #expect(sync["Timestamp"] as? String == Self.timestamp)
        let declarations = try #require(items["Declarations"] as? [String: [[String: Any]]])
        #expect(declarations["Configurations"]?.count == 2 && declarations["Assets"]?.count == 2)
        #expect(declarations["Activations"]?.count == 1 && declarations["Management"]?.isEmpty == true)
        for (_, list) in declarations {
            for item in list {
                let identifier = try #require(item["Identifier"] as? String)
                let file = try Self.json(set.appendingPathComponent("declarations/\(identifier).json"))
                #expect(file["ServerToken"] as? String == item["ServerToken"] as? String)
            }
        }
    }

    /// A changed configuration changes that app's asset token, its declaration is unchanged (the asset identifier
    /// is stable), and the declarations token moves; nothing else changes.
    @Test func aChangedConfigurationMovesOnlyItsTokens() throws {
        let changed = try TestStores.copyCatalog()
        try PublishCommandTests.edit(
            changed, "apps/com.example.fieldsync/config.plist", "<string>warning</string>", "<string>info</string>")
        let (before, a) = try Self.export("Examples/catalog", ["--device", "iphone-0117"])
        let (after, b) = try Self.export(changed.path, ["--device", "iphone-0117"])
        defer {
            try? FileManager.default.removeItem(at: a)
            try? FileManager.default.removeItem(at: b)
        }
        #expect(before.status == 0 && after.status == 0, "\(after.stdout)")
        func tokens(_ root: URL) throws -> [String: String] {
            let items = try Self.json(root.appendingPathComponent("iphone-0117/declaration-items.json"))
            var found: [String: String] = ["(set)": items["DeclarationsToken"] as? String ?? ""]
            for (_, list) in items["Declarations"] as? [String: [[String: Any]]] ?? [:] {
                for item in list { found[item["Identifier"] as! String] = item["ServerToken"] as? String }
            }
            return found
        }
        let old = try tokens(a)
        let new = try tokens(b)
        #expect(Set(old.keys) == Set(new.keys))
        let moved = old.keys.filter { old[$0] != new[$0] }.sorted()
        #expect(moved == ["(set)", "io.mdmconf.asset.com.example.fieldsync"], "\(moved)")
    }

    /// `Examples/ddm` is the export of two devices of the example catalog, byte for byte as the command writes it.
    @Test func theBundledExampleIsCurrent() throws {
        let (result, out) = try Self.export("Examples/catalog", ["--device", "iphone-0117", "--device", "ipad-0042"])
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(result.status == 0)
        let example = CLIProcess.packageRoot.appendingPathComponent("Examples/ddm")
        let written = try FileManager.default.subpathsOfDirectory(atPath: out.path).sorted()
        let bundled = try FileManager.default.subpathsOfDirectory(atPath: example.path).filter { $0 != "README.md" }.sorted()
        #expect(written == bundled)
        for path in written where path.contains(".") {
            #expect(
                try Data(contentsOf: out.appendingPathComponent(path))
                    == Data(contentsOf: example.appendingPathComponent(path)),
                "Examples/ddm/\(path) is stale: rerun mdmconf ddm export Examples/catalog --out Examples/ddm --base-url \(Self.base) --device iphone-0117 --device ipad-0042 --timestamp \(Self.timestamp)")
        }
    }

    /// `validate` of an exported set checks each data asset against its file beside it: size, hash, plist.
    @Test func assetsAreCheckedAgainstTheirData() throws {
        let clean = try CLIProcess.run(["validate", "Examples/ddm/iphone-0117/declarations"])
        #expect(clean.status == 0, "\(clean.stdout)")
        let copy = Scratch.url("ddm-\(UUID().uuidString)")
        try FileManager.default.copyItem(
            at: CLIProcess.packageRoot.appendingPathComponent("Examples/ddm"), to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let assets = copy.appendingPathComponent("iphone-0117/assets")
        let files = try FileManager.default.contentsOfDirectory(atPath: assets.path).sorted()
        try Data("not a plist".utf8).write(to: assets.appendingPathComponent(files[0]))
        let run = try CLIProcess.run(["validate", copy.appendingPathComponent("iphone-0117/declarations").path])
        #expect(run.status == 1)
        for key in ["Size", "Hash-SHA-256", "ContentType"] {
            #expect(run.stdout.contains("key path: Payload.Reference.\(key)"), "\(key): \(run.stdout)")
        }
        #expect(run.stdout.components(separatedBy: "[MC2060 declaration-rule]").count == 4, "\(run.stdout)")
    }

    /// A set that breaks Apple's schemas is refused and nothing is written: an App Store ID in ddm.plist that is not
    /// digits is refused by the catalog; a base URL that is not https by the command.
    @Test func refusals() throws {
        let catalog = try TestStores.copyCatalog()
        try "<plist><dict><key>AppStoreID</key><string>id12</string></dict></plist>".write(
            to: catalog.appendingPathComponent("apps/com.example.field/ddm.plist"), atomically: true, encoding: .utf8)
        let (bad, out) = try Self.export(catalog.path)
        #expect(bad.status == 78 && bad.stdout.contains("MC6016"), "\(bad.stdout)\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path), "nothing is written")
        let http = try CLIProcess.run([
            "ddm", "export", "Examples/catalog", "--out", out.path, "--base-url", "http://mdm.example.com",
        ])
        #expect(http.status == 64 && http.stderr.contains("https"))
        try "<plist><dict><key>AppStoreID</key><string>1234</string><key>LegacyAppConfig</key><true/></dict></plist>"
            .write(
                to: catalog.appendingPathComponent("apps/com.example.field/ddm.plist"), atomically: true, encoding: .utf8)
        let (store, storeOut) = try Self.export(catalog.path, ["--device", "iphone-0117"])
        defer { try? FileManager.default.removeItem(at: storeOut) }
        #expect(store.status == 0, "\(store.stdout)")
        let managed = try Self.json(storeOut.appendingPathComponent("iphone-0117/declarations/io.mdmconf.app.com.example.field.json"))
        let payload = try #require(managed["Payload"] as? [String: Any])
        #expect(payload["AppStoreID"] as? String == "1234" && payload["BundleID"] == nil)
        #expect(payload["LegacyAppConfigAssetReference"] as? String == "io.mdmconf.asset.com.example.field")
    }
}
