import Foundation
import PropertyList

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
        file = InputPaths.cacheFolder().map {
            "\($0)/schema-index-\(Self.generation)-\(InputPaths.nameHash(SchemaDiscovery.realPath(folder))).tsv"
        }
        guard let file, case .bytes(let bytes)? = try? InputFile.read(file, limit: 64 << 20) else { return }
        entries = Self.parse(bytes)
        used.reserveCapacity(entries.count)
    }

    /// The entries of an index file's lines; a line that is not `size TAB mtime TAB id TAB path` is skipped. Read as
    /// bytes: the index is read by every run that looks a schema up, and splitting it as `String` took longer than
    /// the `stat`s it saves.
    static func parse(_ bytes: [UInt8]) -> [String: Entry] {
        var entries: [String: Entry] = [:]
        entries.reserveCapacity(bytes.lazy.filter { $0 == UInt8(ascii: "\n") }.count)
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            defer { start = end + 1 }
            // The three tabs (the path, last, may hold more).
            var tabs = (start, start, start)
            var found = 0
            for index in start..<end where bytes[index] == UInt8(ascii: "\t") {
                found += 1
                if found == 1 { tabs.0 = index } else if found == 2 { tabs.1 = index } else { tabs.2 = index; break }
            }
            guard found == 3, let size = number(bytes[start..<tabs.0]), let mtime = number(bytes[tabs.0 + 1..<tabs.1])
            else { continue }
            let path = String(decoding: bytes[tabs.2 + 1..<end], as: UTF8.self)
            entries[path] = Entry(
                size: size, mtime: mtime, id: String(decoding: bytes[tabs.1 + 1..<tabs.2], as: UTF8.self))
        }
        return entries
    }

    /// A decimal `Int64`, with an optional minus sign.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int64? {
        var rest = digits
        let negative = rest.first == UInt8(ascii: "-")
        if negative { rest = rest.dropFirst() }
        guard !rest.isEmpty else { return nil }
        var value: Int64 = 0
        for digit in rest {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            let (tens, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = tens.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return negative ? -value : value
    }

    /// The id `path` declares: from the index when the file is unchanged (its `stamp`, nil when it could not be
    /// `stat`ed), else from `read`.
    mutating func id(of path: String, stamp: InputPaths.Stamp?, read: (String) -> String?) -> String? {
        guard let (size, mtime) = stamp else { return read(path) }
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
