import ConfigSchema
import MDMDiagnostics
import PropertyList

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds the schema of a configuration by the id the schema declares (specfile `bundleId`, manifest
/// `pfm_domain`, Apple's `payloadtype`, an Android app's package name), searching, in order: the folders of `MDMCONF_SCHEMA_PATH`, `./Schemas`, then the
/// project's bundled `Schemas/` folder. The earliest schema with an id wins, unless `source` prefers Apple's YAML or
/// a ProfileManifest for an id both describe.
public struct SchemaDiscovery: Sendable {
    /// The folders searched, in order.
    public var folders: [String]
    /// Which kind of schema wins when Apple's YAML and a ProfileManifest both describe an id (`--schema-source`);
    /// nil: the earliest on the search path.
    public var source: SchemaSource?

    /// Apple's device-management YAML or a community ProfileManifest.
    public enum SchemaSource: String, Sendable, CaseIterable {
        /// Apple's YAML (`.yaml`): OS versions, enrollment and supervision for every key.
        case apple
        /// A ProfileManifest (`.plist`): titles, hints and conditions written by the community.
        case manifest

        /// Whether the schema at `path` is of this kind.
        func holds(_ path: String) -> Bool {
            switch self {
            case .apple: path.hasSuffix(".yaml") || path.hasSuffix(".yml")
            case .manifest: path.hasSuffix(".plist")
            }
        }
    }

    /// A search of `folders`.
    public init(folders: [String]) { self.folders = folders }

    /// The search path for this process: `MDMCONF_SCHEMA_PATH`, `./Schemas`, the bundled `Schemas/`.
    public static func standard() -> SchemaDiscovery {
        var folders: [String] = []
        if let value = getenv("MDMCONF_SCHEMA_PATH") {
            folders += String(cString: value).split(separator: ":").map(String.init).filter { !$0.isEmpty }
        }
        folders.append("Schemas")
        if let bundled = bundledSchemasFolder(), !folders.contains(bundled) { folders.append(bundled) }
        return SchemaDiscovery(folders: folders)
    }

    /// The project's `Schemas/` folder, found by walking up from the executable (`.build/…/mdmconf`).
    static func bundledSchemasFolder() -> String? {
        guard var folder = executablePath else { return nil }
        for _ in 0..<6 {
            guard let slash = folder.lastIndex(of: "/") else { return nil }
            folder = String(folder[..<slash])
            if InputPaths.isDirectory(folder + "/Schemas") && access(folder + "/Package.swift", F_OK) == 0 {
                return folder + "/Schemas"
            }
        }
        return nil
    }

    /// The running executable's path, from `/proc/self/exe` (Foundation's `Bundle.main` lists the executable's whole
    /// folder to find it, which in `/usr/local/bin` or `/tmp` costs more than checking a profile).
    static let executablePath: String? = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return CommandLine.arguments.first.map(realPath) }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// A schema file and the id it declares.
    public struct Candidate: Sendable, Hashable {
        /// The schema file.
        public var path: String
        /// The id it declares (a bundle id, a manifest domain, a payload or declaration type).
        public var id: String
    }

    /// Every schema on the search path with its declared id, in search order. Each folder's ids are kept in an
    /// index on disk (`SchemaIndex`), so a file is read again only when its path, size or modification time
    /// changed: a library of hundreds of ProfileManifests costs a `stat` per file, not a read.
    public func candidates() -> [Candidate] {
        var found: [Candidate] = []
        // The same folder can be on the path twice (./Schemas is the bundled one when run in the project).
        var seenFolders: Set<String> = []
        for folder in folders where InputPaths.isDirectory(folder) && seenFolders.insert(Self.realPath(folder)).inserted
        {
            var index = SchemaIndex(folder: folder)
            for file in InputPaths.files(below: folder, extensions: ["xml", "plist", "yaml", "json"], stamped: true) {
                guard let id = index.id(of: file.path, stamp: file.stamp, read: Self.readID) else { continue }
                found.append(Candidate(path: file.path, id: id))
            }
            index.save()
        }
        return found
    }

    /// The id a schema file declares, or nil (also for a file that cannot be read: `mdmconf lint` reports it).
    static func readID(_ path: String) -> String? {
        guard case .bytes(let bytes)? = try? InputFile.read(path, limit: 64 << 20) else { return nil }
        if AndroidRestrictionsImporter.recognizes(bytes) { return AndroidRestrictionsImporter.packageName(of: path) }
        if path.hasSuffix(".json") {
            // Only Google Play's managed properties are schemas among JSON files.
            guard ManagedPropertiesImporter.mayBe(bytes) else { return nil }
            let load = ManagedPropertiesImporter().load(JSONPlistReader().read(bytes, file: path))
            guard let id = load.schema?.id, !id.isEmpty else { return nil }
            return id
        }
        return declaredID(bytes)
    }

    /// The `payloadtype` or `declarationtype` of one of Apple's YAML schemas, read from its `payload` mapping's
    /// lines: profiles and declarations are what configurations are checked against (commands, status items and
    /// error responses are not looked up by id).
    static func appleID(_ text: String) -> String? {
        var inPayload = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("payload:") {
                inPayload = true
                continue
            }
            guard inPayload else { continue }
            if let first = line.first, first != " " && first != "#" { return nil }
            let trimmed = line.drop { $0 == " " }
            for field in ["payloadtype:", "declarationtype:"] where trimmed.hasPrefix(field) {
                let value = String(trimmed.dropFirst(field.count)).trimmingWhitespace()
                let unquoted =
                    value.hasPrefix("'") || value.hasPrefix("\"") ? String(value.dropFirst().dropLast()) : value
                return unquoted.isEmpty ? nil : unquoted
            }
        }
        return nil
    }

    /// The canonical absolute path of an existing file (symbolic links and `..` resolved).
    public static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The first schema declaring `id` (of the kind `source` prefers, when one is), and the others that declare it
    /// too.
    public func find(_ id: String, in candidates: [Candidate]) -> (schema: Candidate, shadowed: [Candidate])? {
        var matches = candidates.filter { $0.id == id }
        guard !matches.isEmpty else { return nil }
        let chosen = source.flatMap { source in matches.firstIndex { source.holds($0.path) } } ?? 0
        let schema = matches.remove(at: chosen)
        return (schema, matches)
    }

    /// The id a schema file declares, read cheaply from its text: `<bundleId>` of a specfile, or the string
    /// after `<key>pfm_domain</key>` of a manifest.
    public static func declaredID(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        if AppleSchemaImporter.recognizes(bytes) { return appleID(text) }
        if let value = text.textOfElement(after: "<bundleId>", closing: "</bundleId>"),
            text.contains("<managedAppConfiguration")
        {
            return value.trimmingWhitespace()
        }
        guard let key = text.firstRange(of: "<key>pfm_domain</key>") else { return nil }
        return String(text[key.upperBound...]).textOfElement(after: "<string>", closing: "</string>")?
            .trimmingWhitespace()
    }
}

extension String {
    fileprivate func textOfElement(after opening: String, closing: String) -> String? {
        guard let start = firstRange(of: opening), let end = self[start.upperBound...].firstRange(of: closing) else {
            return nil
        }
        return String(self[start.upperBound..<end.lowerBound])
    }

    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
