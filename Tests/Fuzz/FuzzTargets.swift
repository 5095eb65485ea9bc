// Fuzz targets for the readers of untrusted input (issue 7). One binary, the target chosen by name:
//
//   bash Tests/Fuzz/run.sh TARGET SECONDS          # libFuzzer + AddressSanitizer, seeded from Examples/ and corpus
//   swift run mdmconf-fuzz TARGET FILE|FOLDER...   # replay inputs without libFuzzer (regressions)
//
// Targets: xml-plist, binary-plist, json-plist, specfile, manifest, update-policy, url, profile, policy-query,
// http-body (the server's request bodies), android (app_restrictions.xml and managed properties JSON).
import CivilTime
import ConfigSchema
import DevicePolicy
import MDMConf
import MDMConfServer
import PropertyList
import UpdatePolicy

#if canImport(Glibc)
    import Glibc
#endif

enum FuzzTargets {
    static let names = [
        "xml-plist", "binary-plist", "json-plist", "specfile", "manifest", "update-policy", "url", "profile",
        "policy-query", "http-body", "android",
    ]

    /// The property of every reader target (issue 14): a value a reader accepts can be written in every output
    /// format `convert` has and read back — XML exactly equal; JSON, which has no dates or data of its own, as a
    /// fixed point (written, read and written again: the same text). What XML cannot carry (control characters,
    /// keys with outer whitespace) every reader refuses with a finding, so it never reaches a writer.
    static func writesAndReadsBack(_ document: PlistDocument) {
        guard let root = document.root, !document.hasErrors else { return }
        let xml: String
        do {
            xml = try PlistWriter.xml(root.value)
        } catch {
            preconditionFailure("an accepted value cannot be written as XML: \(error.diagnostic.message)")
        }
        let again = XMLPlistReader().read(Array(xml.utf8), file: "again.plist")
        precondition(!again.hasErrors, "written XML does not read back: \(again.diagnostics.first?.message ?? "")")
        precondition(again.root?.value == root.value, "XML write and read back changed the value")
        let json = PlistWriter.json(root.value)
        let back = JSONPlistReader().read(Array(json.utf8), file: "again.json")
        precondition(!back.hasErrors, "written JSON does not read back: \(back.diagnostics.first?.message ?? "")")
        precondition(
            back.root.map { PlistWriter.json($0.value) } == json, "JSON write and read back is not a fixed point")
    }

    /// Runs one input through `target`; every path must return (findings are fine, traps are not).
    static func run(_ target: String, _ bytes: [UInt8]) {
        switch target {
        case "xml-plist":
            writesAndReadsBack(XMLPlistReader().read(bytes, file: "fuzz.plist"))
        case "binary-plist":
            writesAndReadsBack(BinaryPlistReader().read(bytes, file: "fuzz.plist"))
        case "json-plist":
            writesAndReadsBack(JSONPlistReader().read(bytes, file: "fuzz.json"))
        case "specfile":
            _ = SpecfileImporter().load(bytes, path: "fuzz.xml")
        case "manifest":
            _ = ManifestImporter().load(bytes, path: "fuzz.plist")
        case "update-policy":
            if let document = PolicyLoader().load(bytes, file: "fuzz.plist").document,
                case .success(let request) = UpdateRequest.parse([
                    "app": "com.acme.app", "version": "2.1.0", "platform": "ios", "osVersion": "17.4",
                    "deviceId": "fuzz",
                ])
            {
                _ = Evaluator(document).evaluate(request, now: Instant(seconds: 1_750_000_000), explain: true)
            }
        case "url":
            // The input as a pattern and as a query URL; a parsed URL's normal form is a fixed point.
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? URLPattern(parsing: text)
            if let url = try? QueryURL(parsing: text) {
                let again = try? QueryURL(parsing: url.normalized)
                precondition(again?.normalized == url.normalized, "URL normalisation is not idempotent")
            }
        case "profile":
            let document = ProfileLoader().load(bytes, file: "fuzz.mobileconfig")
            let engine = PolicyEngine(profileSet: ProfileSet(documents: [document], skipInvalid: true))
            let at = Instant(seconds: 1_741_597_200)
            for (kind, argument) in queries {
                _ = engine.evaluate(PolicyQuery(kind: kind, argument: argument, at: at, trace: true)).json.serialized()
            }
        case "policy-query":
            // The input as every kind of query argument against the bundled kiosk profiles.
            let text = String(decoding: bytes, as: UTF8.self)
            let at = Instant(seconds: 1_741_597_200)
            for kind in PolicyQuery.Kind.allCases {
                _ = kioskEngine.evaluate(PolicyQuery(kind: kind, argument: text, at: at)).json.serialized()
            }
            _ = kioskEngine.evaluate(PolicyQuery(kind: .wifi, ssidHex: text, at: at))
        case "http-body":
            // A body of POST /v1/policy/evaluate and of POST /v1/update-check, answered as the server would.
            let at = Instant(seconds: 1_741_597_200)
            if case .success(let request) = PolicyEvaluationRequest.parse(bytes, now: at) {
                let engine =
                    request.profiles.map { PolicyEngine(profileSet: ProfileSet(documents: $0, skipInvalid: false)) }
                    ?? kioskEngine
                if request.query.argumentError == nil, engine.profileSet.isUsable {
                    _ = engine.evaluate(request.query).json.serialized()
                }
            }
            let json = JSONPlistReader(nullMembersAreAbsent: true).read(bytes, file: "request")
            if !json.hasErrors, case .success(let request) = UpdateRequest.parse(json.root) {
                _ = catalogPolicy.evaluate(request, now: at).json.serialized()
            }
        case "android":
            // XML as app_restrictions.xml (references resolved from the tests' res/ tree), anything else as managed
            // properties JSON. A schema either gives without errors is written as managed properties, which must read
            // back without errors and with every key.
            let load: SchemaLoad
            if bytes.first(where: { $0 > 0x20 }) == UInt8(ascii: "<") {
                load = AndroidRestrictionsImporter(resourcesFolder: "Tests/ConfigSchemaTests/AndroidFixtures/res")
                    .load(bytes, path: "fuzz/res/xml/app_restrictions.xml")
            } else {
                load = ManagedPropertiesImporter().load(JSONPlistReader().read(bytes, file: "fuzz.json"))
            }
            if let schema = load.usableSchema, !load.diagnostics.hasErrors {
                let written = ManagedPropertiesWriter.json(schema)
                let back = ManagedPropertiesImporter().load(
                    JSONPlistReader().read(Array(written.json.utf8), file: "back.json"))
                precondition(
                    !back.diagnostics.hasErrors,
                    "written managed properties do not read back: \(back.diagnostics.first?.message ?? "")")
                precondition(
                    written.skipped.isEmpty && back.usableSchema?.keys.count == schema.keys.count,
                    "an Android schema lost keys in managed properties")
                _ = Validator.validate(exampleAndroidConfig, against: schema)
            }
        default:
            fatalError("unknown fuzz target '\(target)'; one of \(names.joined(separator: " "))")
        }
    }

    /// The example Android app's configuration, checked against every schema the android target makes.
    static let exampleAndroidConfig: PlistDocument = {
        let path = "Examples/android/configs/com.example.fieldsync.json"
        guard case .bytes(let bytes)? = try? InputFile.read(path, limit: 1 << 20) else {
            return JSONPlistReader().read(Array("{}".utf8), file: path)
        }
        return JSONPlistReader().read(bytes, file: path)
    }()

    static let queries: [(PolicyQuery.Kind, String?)] = [
        (.app, "com.acme.storefront"), (.url, "https://www.example.com/a"), (.wifi, "ACME-Store"), (.kiosk, nil),
        (.vpn, nil), (.asam, "com.acme.scanner"), (.restriction, "allowSafari"),
    ]

    static let kioskEngine: PolicyEngine = {
        let folder = "Examples/device-policy/profiles"
        let names = [
            "10-app-lock", "20-restrictions", "30-web-filter", "40-wifi", "50-vpn", "60-after-hours",
        ]
        let documents = names.compactMap { name -> ProfileDocument? in
            do { return try ProfileLoader().load(path: "\(folder)/\(name).mobileconfig") } catch { return nil }
        }
        return PolicyEngine(profileSet: ProfileSet(documents: documents, skipInvalid: true))
    }()

    /// The example catalog's update policy (`app` implied by its folder).
    static let catalogPolicy: Evaluator = {
        let path = "Examples/catalog/apps/com.example.field/update-policy.plist"
        guard case .bytes(let bytes)? = try? InputFile.read(path, limit: 1 << 20),
            let document = PolicyLoader().load(bytes, file: path).document
        else { return Evaluator(PolicyDocument()) }
        return Evaluator(document)
    }()

    static let target: String = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? "xml-plist"
}

#if FUZZING
    /// libFuzzer's entry into the target.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        guard let data else { return 0 }
        FuzzTargets.run(FuzzTargets.target, Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// SwiftPM links an executable's `main` to `<module>_main`; here it hands over to libFuzzer's driver.
    @_cdecl("mdmconf_fuzz_main")
    public func fuzzMain(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) -> CInt {
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments, fuzzOne)
    }
#else
    /// Replays files (or every file of folders) through a target: the regression mode.
    @main
    struct FuzzReplay {
        static func main() {
            let arguments = Array(CommandLine.arguments.dropFirst())
            guard let target = arguments.first, FuzzTargets.names.contains(target), arguments.count > 1 else {
                print(
                    "usage: mdmconf-fuzz TARGET FILE|FOLDER...   targets: \(FuzzTargets.names.joined(separator: " "))")
                exit(64)
            }
            var count = 0
            for path in arguments.dropFirst() {
                for file in files(path) {
                    guard case .bytes(let bytes)? = try? InputFile.read(file, limit: 64 * 1024 * 1024) else { continue }
                    FuzzTargets.run(target, bytes)
                    count += 1
                }
            }
            print("\(target): \(count) inputs replayed, no crash")
        }

        static func files(_ path: String) -> [String] {
            guard let handle = opendir(path) else { return [path] }
            defer { closedir(handle) }
            var result: [String] = []
            while let entry = readdir(handle) {
                let name = withUnsafePointer(to: entry.pointee.d_name) { tuple in
                    tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                        String(cString: $0)
                    }
                }
                if name == "." || name == ".." { continue }
                result += files(path + "/" + name)
            }
            return result.sorted()
        }
    }
#endif
