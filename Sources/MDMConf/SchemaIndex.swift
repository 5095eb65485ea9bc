import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The ids declared by the schema files of one folder, cached on disk between runs and trusted for a file while its
/// path, size and modification time (to the nanosecond) are unchanged.
///
/// The cache is `$XDG_CACHE_HOME/mdmconf/schema-index-<generation>-<hash of the folder's real path>.tsv` (`~/.cache/…` without
/// `XDG_CACHE_HOME`): one line per file, `size TAB mtime TAB id TAB path`, an empty id for a file that declares
/// none. It is rewritten (atomically) only when something changed; a cache that cannot be
/// read or written only costs the reads it would have saved.
struct SchemaIndex {
    struct Entry: Equatable {
        var size: Int64
        var mtime: Int64
        var id: String
    }

    /// Part of the cache's name, raised whenever a kind of file comes to declare an id it did not before (3: Android
    /// restrictions and managed properties), so no file keeps an empty id cached by an older build.
    static let generation = 3

    let file: String?
    private var entries: [String: Entry] = [:]
    private var used: [String: Entry] = [:]
    private var changed = false

    init(folder: String) {
        let base =
            ProcessInfo.processInfo.environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ProcessInfo.processInfo.environment["HOME"].map { $0 + "/.cache" }
        file = base.map {
            "\($0)/mdmconf/schema-index-\(Self.generation)-\(ContentHash.hex(Array(SchemaDiscovery.realPath(folder).utf8), bytes: 8)).tsv"
        }
        guard let file, let text = try? String(contentsOfFile: file, encoding: .utf8) else { return }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, let size = Int64(fields[0]), let mtime = Int64(fields[1]) else { continue }
            entries[String(fields[3])] = Entry(size: size, mtime: mtime, id: String(fields[2]))
        }
    }

    /// The id `path` declares: from the index when the file is unchanged, else from `read`.
    mutating func id(of path: String, read: (String) -> String?) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return read(path) }
        #if canImport(Darwin)
            let mtime = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
            let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        let size = Int64(info.st_size)
        if let entry = entries[path], entry.size == size, entry.mtime == mtime {
            used[path] = entry
            return entry.id.isEmpty ? nil : entry.id
        }
        let id = read(path)
        // An id with a tab or newline cannot be written on one line; such a file is read every time.
        if !(id ?? "").contains(where: { $0 == "\t" || $0 == "\n" }) && !path.contains("\n") {
            used[path] = Entry(size: size, mtime: mtime, id: id ?? "")
        }
        changed = true
        return id
    }

    /// Writes the index when a file was read, added or removed since it was loaded.
    mutating func save() {
        guard let file, changed || used.count != entries.count else { return }
        var text = ""
        for (path, entry) in used.sorted(by: { $0.key < $1.key }) {
            text += "\(entry.size)\t\(entry.mtime)\t\(entry.id)\t\(path)\n"
        }
        let folder = (file as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard (try? text.write(toFile: file, atomically: true, encoding: .utf8)) != nil else { return }
        entries = used
        changed = false
    }
}
