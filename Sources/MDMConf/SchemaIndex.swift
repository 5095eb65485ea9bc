import Foundation
import PropertyList

/// The ids declared by the schema files of one folder, cached on disk between runs and trusted for a file while its
/// path, size and modification time (to the nanosecond) are unchanged.
///
/// The cache is `$XDG_CACHE_HOME/mdmconf/schema-index-<generation>-<hash of the folder's real path>.tsv` (`~/.cache/…`
/// without `XDG_CACHE_HOME`): a line per folder the last walk opened, `d TAB inode TAB mtime TAB TAB path`, then a line
/// per file, `f TAB size TAB mtime TAB id TAB path` (an empty id for a file that declares none), sorted by path. It is
/// rewritten (atomically) only when something changed; a cache that cannot be read or written only costs the reads
/// it would have saved. The folder lines let ``unchangedFiles()`` answer without a `stat` per file (see
/// `SchemaDiscovery.unverifiedCandidates()`).
struct SchemaIndex {
    struct Entry: Equatable {
        var size: Int64
        var mtime: Int64
        var id: String
    }

    /// Part of the cache's name, raised whenever what the index holds changes meaning (3: Android restrictions and
    /// managed properties declare ids; 4: the folders walked are kept too), so no older index is misread.
    static let generation = 4

    let file: String?
    /// The index file as read, and its file lines in order (sorted by path, as they are written).
    private var bytes: [UInt8] = []
    private var lines: [Line] = []
    /// The folders the last walk opened, with their stamps.
    private var folders: [Line] = []
    /// The first line not yet passed: files are asked for in the order of their paths, so the index is read like
    /// a merge, with no dictionary of its paths to build (reading the index into one was a fifth of listing the
    /// candidates).
    private var next = 0
    private var used: [(path: String, entry: Entry)] = []
    private var walked: [(path: String, stamp: InputPaths.FolderStamp)] = []
    private var changed = false

    /// One line: where its path and id are in `bytes`, and the stamp it holds (for a folder, its inode as `size`).
    struct Line {
        var path: Range<Int>
        var id: Range<Int>
        var size: Int64
        var mtime: Int64
    }

    init(folder: String) {
        file = InputPaths.cacheFolder().map {
            "\($0)/schema-index-\(Self.generation)-\(InputPaths.nameHash(SchemaDiscovery.realPath(folder))).tsv"
        }
        guard let file, case .bytes(let bytes)? = try? InputFile.read(file, limit: 64 << 20) else { return }
        self.bytes = bytes
        (lines, folders) = Self.parse(bytes)
        used.reserveCapacity(lines.count)
    }

    /// The file and folder lines of an index file: `f TAB size TAB mtime TAB id TAB path` and
    /// `d TAB inode TAB mtime TAB TAB path`; any other line is skipped.
    static func parse(_ bytes: [UInt8]) -> (files: [Line], folders: [Line]) {
        var files: [Line] = []
        var folders: [Line] = []
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            defer { start = end + 1 }
            // The four tabs (the path, last, may hold more).
            var tabs = [Int](repeating: start, count: 4)
            var found = 0
            for index in start..<end where bytes[index] == UInt8(ascii: "\t") {
                tabs[found] = index
                found += 1
                if found == 4 { break }
            }
            guard found == 4, tabs[0] == start + 1, let size = number(bytes[tabs[0] + 1..<tabs[1]]),
                let mtime = number(bytes[tabs[1] + 1..<tabs[2]])
            else { continue }
            let line = Line(path: tabs[3] + 1..<end, id: tabs[2] + 1..<tabs[3], size: size, mtime: mtime)
            switch bytes[start] {
            case UInt8(ascii: "f"): files.append(line)
            case UInt8(ascii: "d"): folders.append(line)
            default: continue
            }
        }
        return (files, folders)
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

    /// The files of the index with the ids they declare and the stamps they had, when every folder the last walk
    /// opened still has the stamp it had then: no file was added, removed or renamed since. Nil when one changed
    /// (or there is no index). A file changed in place is not seen here: its stamp is for the caller to check.
    func unchangedFiles() -> [(path: String, id: String, stamp: InputPaths.Stamp)]? {
        guard !folders.isEmpty else { return nil }
        for folder in folders {
            let path = String(decoding: bytes[folder.path], as: UTF8.self)
            guard let now = InputPaths.folderStamp(of: path), Int64(bitPattern: now.inode) == folder.size,
                now.mtime == folder.mtime
            else { return nil }
        }
        var files: [(path: String, id: String, stamp: InputPaths.Stamp)] = []
        for line in lines where !line.id.isEmpty {
            files.append(
                (
                    String(decoding: bytes[line.path], as: UTF8.self), String(decoding: bytes[line.id], as: UTF8.self),
                    (line.size, line.mtime)
                ))
        }
        return files
    }

    /// The id `path` declares: from the index when the file is unchanged (its `stamp`, nil when it could not be
    /// `stat`ed), else from `read`. Paths are asked for in the order of their UTF-8 bytes; a path asked for out of
    /// that order is read (and the index rewritten).
    mutating func id(of path: String, stamp: InputPaths.Stamp?, read: (String) -> String?) -> String? {
        guard let (size, mtime) = stamp else { return read(path) }
        if let line = line(for: path), line.size == size, line.mtime == mtime {
            let id = String(decoding: bytes[line.id], as: UTF8.self)
            used.append((path, Entry(size: size, mtime: mtime, id: id)))
            return id.isEmpty ? nil : id
        }
        let id = read(path)
        // An id with a tab or newline cannot be written on one line; such a file is read every time.
        if !(id ?? "").contains(where: { $0 == "\t" || $0 == "\n" }) && !path.contains("\n") {
            used.append((path, Entry(size: size, mtime: mtime, id: id ?? "")))
        }
        changed = true
        return id
    }

    /// The folders a walk opened, kept so the next run can tell whether any changed.
    mutating func record(folders opened: [(path: String, stamp: InputPaths.FolderStamp)]) {
        walked = opened.filter { !$0.path.contains("\n") && !$0.path.contains("\t") }
        let same =
            walked.count == folders.count
            && zip(walked, folders).allSatisfy { walked, line in
                Int64(bitPattern: walked.stamp.inode) == line.size && walked.stamp.mtime == line.mtime
                    && walked.path.utf8.elementsEqual(bytes[line.path])
            }
        if !same { changed = true }
    }

    /// The line of `path`, passing the lines of paths before it.
    private mutating func line(for path: String) -> Line? {
        var path = path
        return path.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { all in
                while next < lines.count {
                    let line = lines[next]
                    let order = Self.compare(UnsafeBufferPointer(rebasing: all[line.path]), wanted)
                    if order > 0 { return nil }
                    next += 1
                    if order == 0 { return line }
                }
                return nil
            }
        }
    }

    /// The order of two paths' UTF-8 bytes: negative, zero or positive.
    private static func compare(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(left.count, right.count)
        if common > 0, let a = left.baseAddress, let b = right.baseAddress {
            let order = memcmp(a, b, common)
            if order != 0 { return Int(order) }
        }
        return left.count - right.count
    }

    /// Writes the index when a file was read, added or removed, or a folder changed, since it was loaded.
    mutating func save() {
        guard let file, changed || used.count != lines.count else { return }
        var text = ""
        for (path, stamp) in walked {
            text += "d\t\(Int64(bitPattern: stamp.inode))\t\(stamp.mtime)\t\t\(path)\n"
        }
        for (path, entry) in used.sorted(by: { InputPaths.precedes($0.path, $1.path) }) {
            text += "f\t\(entry.size)\t\(entry.mtime)\t\(entry.id)\t\(path)\n"
        }
        let folder = (file as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard (try? text.write(toFile: file, atomically: true, encoding: .utf8)) != nil else { return }
        bytes = Array(text.utf8)
        (lines, folders) = Self.parse(bytes)
        next = 0
        used.removeAll(keepingCapacity: true)
        changed = false
    }
}
