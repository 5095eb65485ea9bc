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
/// project's bundled `Schemas/` folder. The earliest schema with an id wins; where Apple's YAML and a ProfileManifest
/// both describe an id, Apple's is used with the manifest's hints, unless `source` picks one of them.
public struct SchemaDiscovery: Sendable {
    /// The folders searched, in order.
    public var folders: [String]
    /// Which kind of schema is used alone when Apple's YAML and a ProfileManifest both describe an id
    /// (`--schema-source`); nil: Apple's, with the manifest's hints added.
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
        /// The file's size and modification time when its id was read, for a candidate listed without a `stat` of
        /// the file (``unverifiedCandidates()``): whoever uses it checks that the file still has them.
        var unverified: InputPaths.Stamp?

        /// A schema file declaring `id`.
        public init(path: String, id: String) {
            self.path = path
            self.id = id
        }

        init(path: String, id: String, unverified: InputPaths.Stamp) {
            (self.path, self.id, self.unverified) = (path, id, unverified)
        }

        public static func == (left: Candidate, right: Candidate) -> Bool {
            left.path == right.path && left.id == right.id
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(path)
            hasher.combine(id)
        }

        /// True unless the candidate was listed without a `stat` and its file no longer has the size and
        /// modification time it had when its id was read.
        var isCurrent: Bool {
            guard let unverified else { return true }
            guard let now = InputPaths.stamp(of: path) else { return false }
            return now == unverified
        }
    }

    /// Every schema on the search path with its declared id, in search order. Each folder's ids are kept in an
    /// index on disk (`SchemaIndex`), so a file is read again only when its path, size or modification time
    /// changed: a library of hundreds of ProfileManifests costs a `stat` per file, not a read.
    public func candidates() -> [Candidate] {
        var found: [Candidate] = []
        for folder in searchedFolders() {
            var index = SchemaIndex(folder: folder)
            let listing = InputPaths.listing(
                below: folder, extensions: ["xml", "plist", "yaml", "json"], stamped: true)
            for file in listing.files {
                guard let id = index.id(of: file.path, stamp: file.stamp, read: Self.readID) else { continue }
                found.append(Candidate(path: file.path, id: id))
            }
            index.record(folders: listing.folders)
            index.save()
        }
        return found
    }

    /// The candidates as the indexes hold them, when no folder of the search path had a file added, removed or
    /// renamed since they were written: a `stat` per folder instead of one per file. Nil when a folder changed or
    /// has no index (``candidates()`` then walks them).
    ///
    /// A file changed in place is not seen here, so each candidate carries the stamp its id was read at: a lookup
    /// checks the file it finds (``Candidate/isCurrent``) and, when it changed or nothing declares the id, asks
    /// ``candidates()``.
    func unverifiedCandidates() -> [Candidate]? {
        var found: [Candidate] = []
        for folder in searchedFolders() {
            guard let files = SchemaIndex(folder: folder).unchangedFiles() else { return nil }
            for file in files { found.append(Candidate(path: file.path, id: file.id, unverified: file.stamp)) }
        }
        return found
    }

    /// The folders of the search path that exist, each once (./Schemas is the bundled one when run in the project).
    private func searchedFolders() -> [String] {
        var seen: Set<String> = []
        return folders.filter { InputPaths.isDirectory($0) && seen.insert(Self.realPath($0)).inserted }
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

    /// The schema to check `id` against, the ProfileManifest whose hints join it, and the other files that declare
    /// `id` too.
    public struct Found: Sendable {
        /// The schema file: the first on the path declaring `id`, except that Apple's YAML comes before a
        /// ProfileManifest when no `source` is set, and the kind `source` names comes first when one is.
        public var schema: Candidate
        /// With no `source` set, the first ProfileManifest declaring the id of Apple's ``schema``: its hints are added
        /// to Apple's schema (`ConfigSchema.adding(hintsOf:)`).
        public var hints: Candidate?
        /// The later files declaring `id`, unused.
        public var shadowed: [Candidate]
    }

    /// The schema declaring `id`, the manifest whose hints join it, and the others that declare it (see ``Found``).
    public func find(_ id: String, in candidates: [Candidate]) -> Found? {
        var matches = candidates.filter { $0.id == id }
        guard !matches.isEmpty else { return nil }
        var chosen = 0
        if let source {
            chosen = matches.firstIndex { source.holds($0.path) } ?? 0
        } else if SchemaSource.manifest.holds(matches[0].path) {
            chosen = matches.firstIndex { SchemaSource.apple.holds($0.path) } ?? 0
        }
        let schema = matches.remove(at: chosen)
        var hints: Candidate?
        if source == nil, SchemaSource.apple.holds(schema.path),
            let manifest = matches.firstIndex(where: { SchemaSource.manifest.holds($0.path) })
        {
            hints = matches.remove(at: manifest)
        }
        return Found(schema: schema, hints: hints, shadowed: matches)
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
