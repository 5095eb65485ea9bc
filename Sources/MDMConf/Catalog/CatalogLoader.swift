import ConfigSchema
import DevicePolicy
import Foundation
import MDMDiagnostics
import PropertyList
import UpdatePolicy

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Loads a catalog folder (*Serving a catalog*) into one `Catalog`, or refuses it with every finding: each configuration
/// and group variant checked against its app's schema (and again with each device's variables substituted),
/// each update policy, the profiles, the inventory, the tokens and the settings.
public struct CatalogLoader: Sendable {
    /// The limits every file of the catalog is read with.
    public var readerOptions: PlistReaderOptions

    /// A loader reading with `readerOptions`.
    public init(readerOptions: PlistReaderOptions = PlistReaderOptions()) { self.readerOptions = readerOptions }

    /// Why a catalog was refused: every error, and the warnings found on the way, with the bytes of each file
    /// read so renderers can quote the lines.
    public struct Failure: Error, Sendable {
        /// Every finding, errors and warnings.
        public let diagnostics: [Diagnostic]
        /// The bytes of each file read, by path.
        public let sources: [String: [UInt8]]

        /// The errors alone: what made the catalog unusable.
        public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    }

    /// The catalog in the folder `path`, or every reason it cannot be served.
    public func load(_ path: String) -> Result<Catalog, Failure> {
        var run = CatalogRun(root: path, readerOptions: readerOptions)
        let catalog = run.load()
        if let catalog, !run.findings.hasErrors { return .success(catalog) }
        return .failure(Failure(diagnostics: run.findings, sources: run.sources))
    }

    /// Loads a catalog from its files (a stored generation) exactly as from a folder: they are written to a
    /// fresh temporary folder, loaded, and the folder removed. Findings name the files by their catalog paths
    /// under that folder.
    public func load(files: CatalogFiles) -> Result<Catalog, Failure> {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mdmconf-generation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try files.write(to: folder.path)
        } catch {
            let diagnostic = Diagnostic(
                CatalogCode.unreadableFile, severity: .error,
                message: "the generation's files cannot be written out: \(error)",
                location: SourceLocation(file: folder.path, position: .unknown))
            return .failure(Failure(diagnostics: [diagnostic], sources: [:]))
        }
        return load(folder.path)
    }

    /// A stamp of everything under `path` (names, sizes, modification times, inodes): `--watch` reloads when
    /// it changes.
    public static func stamp(of path: String) -> [UInt64] {
        var stamp: [UInt64] = []
        func walk(_ folder: String, depth: Int) {
            for name in InputPaths.entries(of: folder).sorted() {
                let full = folder + "/" + name
                var info = stat()
                guard lstat(full, &info) == 0 else { continue }
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for byte in full.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
                stamp += [hash, UInt64(truncatingIfNeeded: info.st_size), UInt64(truncatingIfNeeded: info.st_ino)]
                #if canImport(Darwin)
                    stamp += [
                        UInt64(truncatingIfNeeded: info.st_mtimespec.tv_sec),
                        UInt64(truncatingIfNeeded: info.st_mtimespec.tv_nsec),
                    ]
                #else
                    stamp += [
                        UInt64(truncatingIfNeeded: info.st_mtim.tv_sec),
                        UInt64(truncatingIfNeeded: info.st_mtim.tv_nsec),
                    ]
                #endif
                if (info.st_mode & S_IFMT) == S_IFDIR, depth < 4 { walk(full, depth: depth + 1) }
            }
        }
        walk(path, depth: 0)
        return stamp
    }
}

/// One load: the findings and sources collected on the way.
struct CatalogRun {
    let root: String
    let readerOptions: PlistReaderOptions
    var findings: [Diagnostic] = []
    var sources: [String: [UInt8]] = [:]

    init(root: String, readerOptions: PlistReaderOptions) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        self.readerOptions = readerOptions
    }

    static let serverSettingsFile = "mdmconf-server.plist"
    static let inventoryFile = "devices.plist"

    mutating func load() -> Catalog? {
        guard InputPaths.isDirectory(root) else {
            report(
                CatalogCode.notACatalog, "\(root) is not a folder", file: root,
                hint: "pass the catalog folder: the one holding apps/, profiles/ and devices.plist")
            return nil
        }
        let settings = loadSettings()
        let devices = loadInventory()
        let tokens = loadTokens(settings: settings, devices: devices)
        let apps = loadApps(devices: devices)
        let engine = loadProfiles()
        let events = loadEvents()
        checkTopLevel(settings: settings)
        if apps.isEmpty && engine.profileSet.documents.isEmpty && !findings.hasErrors {
            report(
                CatalogCode.emptyCatalog, "\(root) has no apps and no profiles", file: root,
                hint: "a catalog holds apps/<bundleId>/schema.xml and config.plist, and profiles/*.mobileconfig")
        }
        guard !findings.hasErrors else { return nil }
        return Catalog(
            path: root, settings: settings, apps: apps, devices: devices, tokens: tokens, policyEngine: engine,
            events: events, warnings: findings.filter { $0.severity == .warning })
    }

    // MARK: Files

    func join(_ folder: String, _ name: String) -> String { folder + "/" + name }

    mutating func report(
        _ code: DiagnosticCode, _ message: String, severity: Severity = .error, file: String,
        at position: SourcePosition = .unknown, keyPath: String? = nil, hint: String? = nil
    ) {
        findings.append(
            Diagnostic(
                code, severity: severity, message: message, location: SourceLocation(file: file, position: position),
                keyPath: keyPath, hint: hint))
    }

    mutating func read(_ file: String) -> [UInt8]? {
        do {
            switch try InputFile.read(file, limit: readerOptions.maxInputSize) {
            case .bytes(let bytes):
                sources[file] = bytes
                return bytes
            case .tooLarge(let size):
                findings.append(PlistCode.fileTooLarge(size: size, limit: readerOptions.maxInputSize, file: file))
                return nil
            }
        } catch {
            report(CatalogCode.unreadableFile, "cannot read \(file): \(error.reason)", file: file)
            return nil
        }
    }

    /// A plist file's root dict, with the reader's findings recorded; nil when it has errors.
    mutating func readDictionary(_ file: String, code: DiagnosticCode) -> PlistDictionary? {
        guard let bytes = read(file) else { return nil }
        let document = PropertyListReader(options: readerOptions).read(bytes, file: file)
        findings += document.diagnostics
        guard !document.hasErrors, let root = document.root else { return nil }
        guard case .dictionary(let dict) = root.value else {
            report(code, "the root of \(file) must be a dict", file: file, at: root.position)
            return nil
        }
        return dict
    }

    // MARK: Settings, inventory, tokens

    mutating func loadSettings() -> CatalogSettings {
        var settings = CatalogSettings()
        let file = join(root, Self.serverSettingsFile)
        guard InputPaths.isFile(file), let dict = readDictionary(file, code: CatalogCode.invalidSettings) else {
            return settings
        }
        for entry in dict.entries {
            let value = entry.value
            func number(_ range: ClosedRange<Double>) -> Double? {
                let number: Double? =
                    switch value.value {
                    case .integer(let integer): Double(integer)
                    case .real(let real): real
                    default: nil
                    }
                guard let number, range.contains(number) else {
                    report(
                        CatalogCode.invalidSettings,
                        "\(entry.key) must be a number from \(PlistWriter.realText(range.lowerBound)) to \(PlistWriter.realText(range.upperBound))",
                        file: file, at: value.position, keyPath: entry.key)
                    return nil
                }
                return number
            }
            switch entry.key {
            case "tokensFile":
                guard case .string(let name) = value.value, !name.isEmpty, !name.hasPrefix("/"),
                    !name.split(separator: "/").contains("..")
                else {
                    report(
                        CatalogCode.invalidSettings, "tokensFile must be a file name inside the catalog folder",
                        file: file, at: value.position, keyPath: entry.key)
                    continue
                }
                settings.tokensFile = name
            case "maxBodySize": if let size = number(1...1_073_741_824) { settings.maxBodySize = Int(size) }
            case "cacheMaxAge": if let age = number(0...31_536_000) { settings.cacheMaxAge = Int(age) }
            case "reloadInterval": if let interval = number(0.1...3600) { settings.reloadInterval = interval }
            case "requestTimeout": if let timeout = number(0.1...3600) { settings.requestTimeout = timeout }
            case "silentAfterDays": if let days = number(0.001...3650) { settings.silentAfterDays = days }
            default:
                report(
                    CatalogCode.invalidSettings, "unknown setting '\(entry.key)'", file: file, at: entry.keyPosition,
                    keyPath: entry.key,
                    hint:
                        "the settings are tokensFile, maxBodySize, cacheMaxAge, reloadInterval, requestTimeout and silentAfterDays"
                )
            }
        }
        return settings
    }

    /// The entries of `dict` named by a valid id (1 to 128 of A-Z a-z 0-9 . _ : -) whose value is a dictionary, in
    /// order; any other entry is reported with `code` (`name`: how a key is called, `device id`; `item`: what an
    /// entry is, `device`; `holding`: what its dictionary holds).
    mutating func namedDictionaries(
        _ dict: PlistDictionary, file: String, code: DiagnosticCode, name: String, item: String, holding: String
    ) -> [(entry: PlistDictionary.Entry, fields: PlistDictionary)] {
        var found: [(entry: PlistDictionary.Entry, fields: PlistDictionary)] = []
        for entry in dict.entries {
            guard CatalogDevice.isValidID(entry.key) else {
                report(
                    code, "\(name) '\(entry.key)' is not 1 to 128 of A-Z a-z 0-9 . _ : -", file: file,
                    at: entry.keyPosition, keyPath: entry.key)
                continue
            }
            guard case .dictionary(let fields) = entry.value.value else {
                report(
                    code, "\(item) '\(entry.key)' must be a dict of \(holding)", file: file, at: entry.value.position,
                    keyPath: entry.key)
                continue
            }
            found.append((entry, fields))
        }
        return found
    }

    mutating func loadInventory() -> [String: CatalogDevice] {
        let file = join(root, Self.inventoryFile)
        guard InputPaths.isFile(file), let dict = readDictionary(file, code: CatalogCode.invalidInventory) else {
            return [:]
        }
        var devices: [String: CatalogDevice] = [:]
        let named = namedDictionaries(
            dict, file: file, code: CatalogCode.invalidInventory, name: "device id", item: "device",
            holding: "attributes")
        for (entry, fields) in named {
            var attributes: [String: String] = [:]
            var groups: [String] = []
            for field in fields.entries {
                let path = entry.key + "." + field.key
                switch (field.key, field.value.value) {
                case ("groups", .array(let items)):
                    for (index, item) in items.enumerated() {
                        guard case .string(let group) = item.value, CatalogDevice.isValidID(group) else {
                            report(
                                CatalogCode.invalidInventory,
                                "groups[\(index)] of '\(entry.key)' must be a group name (A-Z a-z 0-9 . _ : -)",
                                file: file, at: item.position, keyPath: path + "[\(index)]")
                            continue
                        }
                        groups.append(group)
                    }
                case ("groups", _):
                    report(
                        CatalogCode.invalidInventory, "groups of '\(entry.key)' must be an array of strings",
                        file: file, at: field.value.position, keyPath: path)
                case (_, .string(let text)):
                    attributes[field.key] = text
                default:
                    report(
                        CatalogCode.invalidInventory,
                        "attribute '\(field.key)' of '\(entry.key)' must be a string (it is \(field.value.value.typeName))",
                        file: file, at: field.value.position, keyPath: path)
                }
            }
            devices[entry.key] = CatalogDevice(id: entry.key, attributes: attributes, groups: groups)
        }
        return devices
    }

    mutating func loadTokens(settings: CatalogSettings, devices: [String: CatalogDevice]) -> [CatalogToken]? {
        let file = join(root, settings.tokensFile)
        guard InputPaths.isFile(file) else {
            if settings.tokensFile != CatalogSettings().tokensFile {
                report(
                    CatalogCode.invalidTokens, "the tokens file \(file) named by tokensFile does not exist",
                    file: join(root, Self.serverSettingsFile), keyPath: "tokensFile")
            }
            return nil
        }
        guard let dict = readDictionary(file, code: CatalogCode.invalidTokens) else { return [] }
        var tokens: [CatalogToken] = []
        for entry in dict.entries {
            guard let digest = Self.hexDigest(entry.key) else {
                report(
                    CatalogCode.invalidTokens,
                    "a key is not a SHA-256 digest (64 hex digits); it is not quoted in case it is a token",
                    file: file, at: entry.keyPosition,
                    hint: "store only the hash: printf %s \"$TOKEN\" | sha256sum")
                continue
            }
            guard case .dictionary(let fields) = entry.value.value else {
                report(
                    CatalogCode.invalidTokens, "each token must be a dict with scope (and device)", file: file,
                    at: entry.value.position)
                continue
            }
            var scope: String?
            var device: String?
            var fieldsValid = true
            for field in fields.entries {
                switch (field.key, field.value.value) {
                case ("scope", .string(let text)): scope = text
                case ("device", .string(let text)): device = text
                case ("name", .string), ("comment", .string): break
                default:
                    fieldsValid = false
                    report(
                        CatalogCode.invalidTokens,
                        "unknown or mistyped token field '\(field.key)' (scope, device, name and comment are strings)",
                        file: file, at: field.value.position)
                }
            }
            guard fieldsValid else { continue }
            switch (scope, device) {
            case ("admin", nil): tokens.append(CatalogToken(digest: digest, scope: .admin))
            case ("mdm", nil): tokens.append(CatalogToken(digest: digest, scope: .mdm))
            case ("device", let device?) where devices[device] != nil:
                tokens.append(CatalogToken(digest: digest, scope: .device(device)))
            case ("device", let device?):
                report(
                    CatalogCode.invalidTokens, "token for device '\(device)', which devices.plist does not list",
                    file: file, at: entry.value.position)
            case ("device", nil):
                report(CatalogCode.invalidTokens, "a device token needs 'device'", file: file, at: entry.value.position)
            case ("admin", _?), ("mdm", _?):
                report(
                    CatalogCode.invalidTokens, "an \(scope ?? "") token names no device", file: file,
                    at: entry.value.position)
            default:
                report(
                    CatalogCode.invalidTokens, "scope must be 'admin', 'device' or 'mdm'", file: file,
                    at: entry.value.position)
            }
        }
        return tokens
    }

    static func hexDigest(_ text: String) -> [UInt8]? {
        let bytes = Array(text.utf8)
        guard bytes.count == 64 else { return nil }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var digest: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            digest.append(high << 4 | low)
        }
        return digest
    }

    // MARK: Profiles and the top level

    /// A part of the catalog that is a symbolic link leading nowhere, said as such (not as a missing file).
    mutating func reportDanglingLink(_ name: String, target: String, code: DiagnosticCode, file: String) {
        report(
            code, "\(name) is a symbolic link to '\(target)', which does not exist", file: file,
            hint:
                "a catalog copied with 'cp -r' keeps relative links; copy it with 'cp -rL', or put the file itself there"
        )
    }

    mutating func loadProfiles() -> PolicyEngine {
        let folder = join(root, "profiles")
        var documents: [ProfileDocument] = []
        if let target = InputPaths.danglingLinkTarget(folder) {
            reportDanglingLink("profiles", target: target, code: CatalogCode.unreadableFile, file: folder)
        }
        if InputPaths.isDirectory(folder) {
            let loader = ProfileLoader(readerOptions: readerOptions)
            for (path, ifDeclaration) in ProfileInputs.listing([folder]) {
                guard let bytes = read(path),
                    let document = ProfileInputs.document(
                        bytes, file: path, loader: loader, ifDeclaration: ifDeclaration)
                else { continue }
                documents.append(document)
            }
        }
        let set = ProfileSet(documents: documents, skipInvalid: false)
        findings += set.diagnostics.map(\.diagnostic)
        return PolicyEngine(profileSet: set)
    }

    mutating func checkTopLevel(settings: CatalogSettings) {
        let known: Set<String> = [
            "apps", "profiles", Self.inventoryFile, Self.serverSettingsFile, settings.tokensFile, Self.eventsFile,
        ]
        for name in InputPaths.entries(of: root).sorted() where !name.hasPrefix(".") && !known.contains(name) {
            if name.hasPrefix("README") || name.hasSuffix(".md") || name.hasSuffix(".txt") { continue }
            report(
                CatalogCode.unexpectedFile, "\(name) is not part of a catalog and is ignored", severity: .warning,
                file: join(root, name),
                hint:
                    "a catalog holds apps/, profiles/, devices.plist, tokens.plist, events.plist and mdmconf-server.plist"
            )
        }
    }
}
