#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// File-system facts the store options need.
enum StorePaths {
    /// True when `path` (a file that may not exist yet) lies inside `folder`, links resolved.
    static func isInside(_ path: String, folder: String) -> Bool {
        guard let root = realPath(folder) else { return false }
        let slash = path.lastIndex(of: "/")
        let parent = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        guard let resolved = realPath(parent) else { return false }
        return resolved == root || resolved.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `host:port`, the default replica name.
    static func replicaName(port: Int) -> String { "\(hostName):\(port)" }

    /// This machine's name (the source of the events a command sends).
    static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        return gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "localhost"
    }
}
