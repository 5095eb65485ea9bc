import Foundation
import MDMDiagnostics
import PropertyList

/// A catalog's files, by path relative to its folder (`apps/com.example.field/config.plist`): what a folder
/// holds or what a stored generation keeps.
public struct CatalogFiles: Sendable, Equatable {
    /// Each file's bytes by its path relative to the catalog folder.
    public var files: [String: [UInt8]]

    /// A catalog of `files`.
    public init(_ files: [String: [UInt8]] = [:]) { self.files = files }

    /// Every regular file under `folder` (links followed), dot-files and dot-folders left out.
    public static func read(folder: String) throws(InputError) -> CatalogFiles {
        let root = URL(fileURLWithPath: folder).standardizedFileURL
        guard let walker = FileManager.default.enumerator(atPath: root.path) else {
            throw InputError(path: folder, reason: "not a readable folder")
        }
        var files: [String: [UInt8]] = [:]
        while let relative = walker.nextObject() as? String {
            if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
            let path = root.appendingPathComponent(relative).path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
                continue
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw InputError(path: path, reason: "cannot be read")
            }
            files[relative] = [UInt8](data)
        }
        return CatalogFiles(files)
    }

    /// Writes the files under `folder` (which must not exist yet or be empty).
    public func write(to folder: String) throws {
        let root = URL(fileURLWithPath: folder)
        for (path, bytes) in files {
            let target = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: target)
        }
    }

    /// SHA-256 hex of one file's bytes.
    public static func hash(_ bytes: [UInt8]) -> String { ContentHash.hex(bytes) }

    /// One hash over every path and its bytes' hash, in path order: equal exactly when the content is equal.
    public var contentHash: String {
        var text = ""
        for (path, bytes) in files.sorted(by: { $0.key.utf8Precedes($1.key) }) {
            text += "\(path)\u{0}\(ContentHash.hex(bytes))\n"
        }
        return ContentHash.hex(Array(text.utf8))
    }
}

/// What changed between two catalogs, file by file and key by key, and who it reaches.
public struct CatalogDiff: Sendable {
    /// One file that differs.
    public struct FileChange: Sendable {
        /// What happened to the file.
        public enum Kind: String, Sendable {
            /// Only the new catalog has it.
            case added
            /// Only the old catalog has it.
            case removed
            /// Both have it, with different bytes.
            case changed
        }
        /// The file's path relative to the catalog folder.
        public var path: String
        /// What happened to it.
        public var kind: Kind
        /// What the file is: `com.example.field: configuration`, `… group warehouse`, `… update policy`, `profile`,
        /// `inventory`, `tokens`, `settings`, `schema`.
        public var role: String
        /// Its changes key by key (empty for a file added, removed, or not compared).
        public var changes: [ValueChange]
        /// For a file that is not compared key by key (a specfile, bytes that do not parse).
        public var note: String?
    }

    /// How many inventory devices get different configuration bytes for one app.
    public struct Reach: Sendable, Equatable {
        /// The app's bundle id.
        public var app: String
        /// Inventory devices the app is served to.
        public var devices: Int
        /// Of those, the devices whose configuration bytes change.
        public var changed: Int
        /// Changed devices by the variant they are served (`config.plist` for the default).
        public var byVariant: [String: Int]
    }

    /// The files that differ, by path.
    public var files: [FileChange]
    /// Per app, how many devices get different bytes.
    public var reach: [Reach]

    /// True when the catalogs are the same.
    public var isEmpty: Bool { files.isEmpty }

    /// The diff of two catalogs' files; with both loaded catalogs, also who gets different bytes.
    public static func compare(
        _ old: CatalogFiles, _ new: CatalogFiles, oldCatalog: Catalog? = nil, newCatalog: Catalog? = nil
    )
        -> CatalogDiff
    {
        var files: [FileChange] = []
        let paths = Set(old.files.keys).union(new.files.keys).sorted { $0.utf8Precedes($1) }
        for path in paths {
            let before = old.files[path]
            let after = new.files[path]
            if before == after { continue }
            let role = Self.role(of: path)
            let kind: FileChange.Kind = before == nil ? .added : after == nil ? .removed : .changed
            let platform: ConfigPlatform = path.hasSuffix(".json") ? .android : .apple
            let schema = Self.app(of: path).flatMap {
                newCatalog?.apps[$0]?.schema(for: platform) ?? oldCatalog?.apps[$0]?.schema(for: platform)
            }
            let sensitive: @Sendable (KeyPath) -> Bool
            if path == "tokens.plist" {
                sensitive = { _ in true }
            } else {
                sensitive = { path in (schema?.isSensitive(path) ?? false) || PlistDiff.looksSecret(path) }
            }
            guard path.hasSuffix(".plist") || path.hasSuffix(".mobileconfig") || path.hasSuffix(".json") else {
                files.append(
                    FileChange(path: path, kind: kind, role: role, changes: [], note: Self.byteNote(before, after)))
                continue
            }
            let a = before.map { Self.value($0, path) } ?? .some(.dictionary(PlistDictionary()))
            let b = after.map { Self.value($0, path) } ?? .some(.dictionary(PlistDictionary()))
            guard let a, let b else {
                files.append(
                    FileChange(
                        path: path, kind: kind, role: role, changes: [],
                        note: "not a readable plist: " + Self.byteNote(before, after)))
                continue
            }
            let changes = PlistDiff(isSensitive: sensitive).changes(from: a, to: b)
            files.append(
                FileChange(
                    path: path, kind: kind, role: role, changes: changes,
                    note: changes.isEmpty ? "same values, different bytes (formatting or comments)" : nil))
        }
        var reach: [Reach] = []
        if let oldCatalog, let newCatalog {
            for id in Set(oldCatalog.appIDs).union(newCatalog.appIDs).sorted() {
                let devices = newCatalog.devices.keys.sorted()
                var changed = 0
                var byVariant: [String: Int] = [:]
                for device in devices {
                    let platform = newCatalog.devices[device]?.platform ?? .apple
                    let now = newCatalog.apps[id]?.config(forDevice: device, platform: platform)
                    let then = oldCatalog.apps[id]?.config(forDevice: device, platform: platform)
                    if now?.xml.etag != then?.xml.etag {
                        changed += 1
                        let fallback = platform == .android && newCatalog.apps[id]?.android != nil ? "config.json" : "config.plist"
                        byVariant[now?.variant ?? (now == nil ? "(app removed)" : fallback), default: 0] += 1
                    }
                }
                reach.append(Reach(app: id, devices: devices.count, changed: changed, byVariant: byVariant))
            }
        }
        return CatalogDiff(files: files, reach: reach)
    }

    static func value(_ bytes: [UInt8], _ path: String) -> PlistValue? {
        let document = PropertyListReader().read(bytes, file: path)
        return document.hasErrors ? nil : document.root?.value
    }

    static func byteNote(_ before: [UInt8]?, _ after: [UInt8]?) -> String {
        switch (before, after) {
        case (nil, let after?): "\(after.count) bytes"
        case (let before?, nil): "\(before.count) bytes"
        case (let before?, let after?): "\(before.count) → \(after.count) bytes"
        default: ""
        }
    }

    static func app(of path: String) -> String? {
        let parts = path.split(separator: "/")
        return parts.count >= 3 && parts[0] == "apps" ? String(parts[1]) : nil
    }

    static func role(of path: String) -> String {
        let parts = path.split(separator: "/").map(String.init)
        if let app = app(of: path) {
            let rest = parts.dropFirst(2).joined(separator: "/")
            if rest == "config.plist" { return "\(app): configuration" }
            if rest == "config.json" { return "\(app): Android configuration" }
            if rest.hasPrefix("configs/") {
                let group = (parts.last! as NSString).deletingPathExtension
                return rest.hasSuffix(".json") ? "\(app): Android group \(group)" : "\(app): group \(group)"
            }
            if rest.hasPrefix("update-policy.") { return "\(app): update policy" }
            if rest.hasPrefix("schema.") { return "\(app): schema" }
            if rest == "app_restrictions.xml" || rest.hasPrefix("res/") { return "\(app): Android schema" }
            return "\(app): \(rest)"
        }
        switch parts.first {
        case "profiles": return "profile"
        case "devices.plist": return "inventory"
        case "tokens.plist": return "tokens"
        case "mdmconf-server.plist": return "settings"
        default: return "file"
        }
    }

    /// How many changes there are, a file without key-by-key changes counting one.
    public var changeCount: Int { files.reduce(0) { $0 + max(1, $1.changes.count) } }

    /// The diff as an admin pastes it into a change ticket.
    public var text: String {
        var lines: [String] = []
        for file in files {
            let mark = file.kind == .added ? " (new file)" : file.kind == .removed ? " (removed)" : ""
            lines.append("\(file.path)\(mark)  [\(file.role)]")
            for change in file.changes { lines.append("  " + change.line) }
            if let note = file.note { lines.append("  \(note)") }
        }
        if !reach.isEmpty && !isEmpty {
            lines.append("who is affected:")
            for app in reach {
                if app.changed == 0 {
                    lines.append("  \(app.app): no device gets different configuration bytes")
                } else {
                    let variants = app.byVariant.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
                        separator: ", ")
                    lines.append(
                        "  \(app.app): \(app.changed) of \(app.devices) inventory devices get different configuration bytes (\(variants))"
                    )
                }
            }
        }
        lines.append(isEmpty ? "no differences" : "\(files.count) files differ, \(changeCount) changes")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The diff as `mdmconf diff --format json` writes it.
    public var json: JSONValue {
        .object([
            ("equal", .bool(isEmpty)),
            (
                "files",
                .array(
                    files.map { file in
                        .object([
                            ("path", .string(file.path)), ("kind", .string(file.kind.rawValue)),
                            ("role", .string(file.role)),
                            ("changes", .array(file.changes.map(\.json))), ("note", .optional(file.note)),
                        ])
                    })
            ),
            (
                "affected",
                .array(
                    reach.map { app in
                        .object([
                            ("app", .string(app.app)), ("devices", .integer(app.devices)),
                            ("changed", .integer(app.changed)),
                            (
                                "byVariant",
                                .object(app.byVariant.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) })
                            ),
                        ])
                    })
            ),
        ])
    }
}
