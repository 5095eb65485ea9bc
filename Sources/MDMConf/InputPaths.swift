import PropertyList

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Expands the paths named on a command line: files stay as given, folders become the files below them
/// whose names end in one of `extensions`, sorted so that runs are repeatable.
public enum InputPaths {
    /// The extensions taken from a folder by default.
    public static let plistExtensions = ["plist", "mobileconfig", "xml", "json"]

    /// The files `paths` name: files (and `-`) as given, folders replaced by their files.
    public static func expand(_ paths: [String], extensions: [String] = plistExtensions) -> [String] {
        var result: [String] = []
        for path in paths {
            if path != "-", isDirectory(path) {
                result += listing(below: path, extensions: extensions, stamped: false).files.map(\.path)
            } else {
                result.append(path)
            }
        }
        return result
    }

    /// What a walk of a folder found: the matching files, sorted by path (with their ``stamp(of:)`` when stamped),
    /// and, when stamped, every folder it opened with its ``FolderStamp``, taken before its names were read.
    struct Listing {
        var files: [(path: String, stamp: Stamp?)] = []
        var folders: [(path: String, stamp: FolderStamp)] = []
    }

    /// The files below `folder` (in its sub-folders too, following links; names starting with `.` skipped) whose
    /// names end in one of `extensions` (any case). Every folder is opened once and its files are `stat`ed relative
    /// to it, not by their whole paths: the `stat`s are most of walking a schema library, which every run that looks
    /// a schema up may do.
    static func listing(below folder: String, extensions: [String], stamped: Bool) -> Listing {
        var listing = Listing()
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return listing }
        let root = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        let wanted = extensions.map { Array($0.lowercased().utf8) }
        walk(directory, path: root, stamped: stamped, into: &listing) { name in
            let bytes = name.utf8
            guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return false }
            let suffix = bytes[bytes.index(after: dot)...]
            // ASCII letters compared without case, without making a lowercased copy of every name.
            return wanted.contains { $0.count == suffix.count && zip($0, suffix).allSatisfy { $0 == Self.lower($1) } }
        }
        listing.files.sort { precedes($0.path, $1.path) }
        return listing
    }

    /// The order files are listed in: `String`'s, which for paths in Unicode's composed form is the order of their
    /// UTF-8 bytes (what the schema index is read in).
    static func precedes(_ left: String, _ right: String) -> Bool { left < right }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// Adds the matching files of the open folder `directory` (named `path`) and of its sub-folders; closes it.
    private static func walk(
        _ directory: Int32, path: String, stamped: Bool, into listing: inout Listing, matching: (String) -> Bool
    ) {
        var info = stat()
        if stamped, fstat(directory, &info) == 0 { listing.folders.append((path, folderStamp(info))) }
        guard let handle = fdopendir(directory) else {
            close(directory)
            return
        }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    String(cString: $0)
                }
            }
            guard !name.hasPrefix(".") else { continue }
            var isFolder = Int32(entry.pointee.d_type) == Int32(DT_DIR)
            var known = false
            if Int32(entry.pointee.d_type) != Int32(DT_DIR) && Int32(entry.pointee.d_type) != Int32(DT_REG) {
                // A link, or a file system that does not say: ask.
                guard fstatat(dirfd(handle), name, &info, 0) == 0 else { continue }
                isFolder = (info.st_mode & S_IFMT) == S_IFDIR
                known = true
            }
            if isFolder {
                let child = openat(dirfd(handle), name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                if child >= 0 {
                    walk(child, path: path + "/" + name, stamped: stamped, into: &listing, matching: matching)
                }
            } else if matching(name) {
                let found = !stamped || known || fstatat(dirfd(handle), name, &info, 0) == 0
                listing.files.append((path + "/" + name, stamped && found ? stamp(info) : nil))
            }
        }
    }

    /// True when `path` names an existing file that is not a folder.
    public static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR
    }

    /// Where `path` points when it is a symbolic link whose target does not exist (a catalog copied with `cp -r`
    /// keeps relative links that no longer lead anywhere); nil for anything else.
    public static func danglingLinkTarget(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, stat(path, &info) != 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return "" }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// True when `path` is a folder (following links).
    public static func isDirectory(_ path: String) -> Bool { InputFile.isDirectory(path) }

    /// The names in `folder` (without `.` and `..`), in directory order; empty when it cannot be opened.
    static func entries(of folder: String) -> [String] { InputFile.entries(of: folder) }

    /// `$XDG_CACHE_HOME/mdmconf` (`~/.cache/mdmconf` without it), where the schema index and the compiled schemas are
    /// kept; nil when neither variable is set. Read with `getenv`: Foundation builds a dictionary of the whole
    /// environment for every `ProcessInfo.environment`.
    static func cacheFolder() -> String? {
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        let base =
            variable("XDG_CACHE_HOME").flatMap { $0.isEmpty ? nil : $0 } ?? variable("HOME").map { $0 + "/.cache" }
        return base.map { $0 + "/mdmconf" }
    }

    /// A short, stable name for `text` in a cache folder: 64-bit FNV-1a as 16 hexadecimal digits. Not a checksum:
    /// what a cache file holds is checked against its header, so two texts that hash alike only share a name.
    static func nameHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// A file's size and modification time (to the nanosecond): what on-disk caches trust a file by.
    typealias Stamp = (size: Int64, mtime: Int64)

    /// The stamp of `path`, or nil when it cannot be `stat`ed.
    static func stamp(of path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return stamp(info)
    }

    /// A folder's inode and modification time (to the nanosecond): its names are the same while both are (adding,
    /// removing or renaming an entry changes the time; a folder put in its place has another inode).
    typealias FolderStamp = (inode: UInt64, mtime: Int64)

    /// The stamp of the folder at `path`, or nil when it cannot be `stat`ed.
    static func folderStamp(of path: String) -> FolderStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return folderStamp(info)
    }

    private static func folderStamp(_ info: stat) -> FolderStamp { (UInt64(info.st_ino), stamp(info).mtime) }

    private static func stamp(_ info: stat) -> Stamp {
        #if canImport(Darwin)
            let mtime = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
            let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        return (Int64(info.st_size), mtime)
    }
}
