import Foundation
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
                result += filesBelow(path, extensions: extensions).sorted()
            } else {
                result.append(path)
            }
        }
        return result
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

    private static func filesBelow(_ folder: String, extensions: [String]) -> [String] {
        var files: [String] = []
        for (name, kind) in InputFile.kindedEntries(of: folder) where !name.hasPrefix(".") {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            if kind ?? isDirectory(path) {
                files += filesBelow(path, extensions: extensions)
            } else if let dot = name.lastIndex(of: "."),
                extensions.contains(String(name[name.index(after: dot)...]).lowercased())
            {
                files.append(path)
            }
        }
        return files
    }

    /// The names in `folder` (without `.` and `..`), in directory order; empty when it cannot be opened.
    static func entries(of folder: String) -> [String] { InputFile.entries(of: folder) }

    /// `$XDG_CACHE_HOME/mdmconf` (`~/.cache/mdmconf` without it), where the schema index and the compiled schemas are
    /// kept; nil when neither variable is set.
    static func cacheFolder(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let base =
            environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["HOME"].map { $0 + "/.cache" }
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
        #if canImport(Darwin)
            let mtime = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
            let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        return (Int64(info.st_size), mtime)
    }
}
