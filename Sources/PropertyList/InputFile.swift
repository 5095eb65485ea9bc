import MDMDiagnostics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file that could not be read at all (missing, a folder, no permission): the `66` exit of the CLI.
public struct InputError: Error, Sendable, Equatable {
    /// The path as given.
    public var path: String
    /// Why it cannot be read ("no such file", "permission denied"…).
    public var reason: String

    /// The error of `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// The error as a finding (MC1001) against the file.
    public var diagnostic: Diagnostic {
        Diagnostic(
            PlistCode.unreadableFile, severity: .error, message: "cannot read \(path): \(reason)",
            location: SourceLocation(file: path))
    }
}

/// Reading whole inputs with a size limit, from a path or from standard input (`-`).
public enum InputFile {
    /// A file's bytes, or its size when it is over the limit (nothing is read then).
    public enum Contents: Sendable {
        /// The whole file.
        case bytes([UInt8])
        /// The input is larger than the limit; it was not read. The size is known for regular files.
        case tooLarge(size: Int)
    }

    /// The name standard input has in diagnostics.
    public static let standardInputName = "<stdin>"

    /// Reads `path` (or standard input for `-`) unless it is larger than `limit` bytes.
    public static func read(_ path: String, limit: Int) throws(InputError) -> Contents {
        if path == "-" { return try readAll(descriptor: 0, path: standardInputName, limit: limit, knownSize: nil) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw InputError(path: path, reason: describe(errno)) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw InputError(path: path, reason: describe(errno)) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw InputError(path: path, reason: "is a folder") }
        let size = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
        if let size, size > limit { return .tooLarge(size: size) }
        return try readAll(descriptor: descriptor, path: path, limit: limit, knownSize: size)
    }

    private static func readAll(
        descriptor: Int32, path: String, limit: Int, knownSize: Int?
    ) throws(InputError) -> Contents {
        // A regular file is read straight into an array of its size (one extra byte notices growth);
        // pipes and terminals in chunks.
        let chunk = knownSize.map { $0 + 1 } ?? 64 * 1024
        var bytes: [UInt8] = []
        while true {
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: chunk))
            let count = bytes.withUnsafeMutableBytes { buffer in
                systemRead(descriptor, buffer.baseAddress.map { $0 + start }, chunk)
            }
            bytes.removeLast(chunk - max(count, 0))
            if count < 0 {
                if errno == EINTR { continue }
                throw InputError(path: path, reason: describe(errno))
            }
            if count == 0 { break }
            if bytes.count > limit { return .tooLarge(size: bytes.count) }
        }
        return .bytes(bytes)
    }

    /// The names in `folder` (without `.` and `..`), in directory order; empty when it cannot be opened.
    public static func entries(of folder: String) -> [String] { kindedEntries(of: folder).map(\.name) }

    /// The names in `folder` (without `.` and `..`), in directory order, each with whether it is a folder when the
    /// directory says so (nil when it does not, as for a symbolic link: `stat` it). Walking a tree of schemas this
    /// way needs no `stat` per file.
    public static func kindedEntries(of folder: String) -> [(name: String, isDirectory: Bool?)] {
        guard let handle = opendir(folder) else { return [] }
        defer { closedir(handle) }
        var names: [(name: String, isDirectory: Bool?)] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    String(cString: $0)
                }
            }
            guard name != "." && name != ".." else { continue }
            let kind: Bool? =
                switch Int32(entry.pointee.d_type) {
                case Int32(DT_DIR): true
                case Int32(DT_REG): false
                default: nil
                }
            names.append((name, kind))
        }
        return names
    }

    /// True when `path` names an existing folder.
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private static func describe(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES, EPERM: "permission denied"
        case EISDIR: "is a folder"
        case ENOTDIR: "a part of the path is not a folder"
        default: String(cString: strerror(code))
        }
    }
}

/// Looking at a file's first bytes.
extension Array where Element == UInt8 {
    /// True when `needle` occurs within the first `limit` bytes (a cheap look at a file's head).
    public func headContains(_ needle: String, within limit: Int = 4096) -> Bool {
        let pattern = Array(needle.utf8)
        let end = Swift.min(count, limit)
        guard let first = pattern.first, pattern.count <= end else { return false }
        var index = 0
        while index + pattern.count <= end {
            if self[index] == first && self[index..<index + pattern.count].elementsEqual(pattern) { return true }
            index += 1
        }
        return false
    }
}

/// POSIX `read`, named apart from `InputFile.read`.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// The front door for plist input: detects binary, JSON and XML and reads them with the right reader.
public struct PropertyListReader: Sendable {
    /// The limits every format is read with.
    public var options: PlistReaderOptions

    /// A reader with `options`.
    public init(options: PlistReaderOptions = PlistReaderOptions()) { self.options = options }

    /// The kind of input `bytes` hold, judged from their first bytes: `bplist00` is binary; an object, array,
    /// string or number is JSON; anything else is read as XML (nil).
    public static func detectShape(_ bytes: [UInt8]) -> PlistShape? {
        if bytes.starts(with: BinaryPlistReader.magic) { return .binary }
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count, XMLPlistBuilder.isXMLSpace(bytes[index]) { index += 1 }
        guard index < bytes.count else { return nil }
        // JSON starts with an object, an array, a string or a number; XML with '<'.
        switch bytes[index] {
        case 0x7B, 0x5B, 0x22, 0x2D, 0x30...0x39: return .json
        default: return nil
        }
    }

    /// The plist in `bytes`, in whichever of the three formats it is, findings reported against `file`.
    public func read(_ bytes: [UInt8], file: String) -> PlistDocument {
        switch Self.detectShape(bytes) {
        case .binary: BinaryPlistReader(options: options).read(bytes, file: file)
        case .json: JSONPlistReader(options: options).read(bytes, file: file)
        default: XMLPlistReader(options: options).read(bytes, file: file)
        }
    }

    /// Reads the file at `path` (`-` for standard input). Only an unreadable file throws; a file over the
    /// size limit is a document with an `MC1006` finding, and nothing of it is read.
    public func readFile(_ path: String) throws(InputError) -> (document: PlistDocument, source: [UInt8]) {
        let name = path == "-" ? InputFile.standardInputName : path
        switch try InputFile.read(path, limit: options.maxInputSize) {
        case .bytes(let bytes):
            return (read(bytes, file: name), bytes)
        case .tooLarge(let size):
            let diagnostic = PlistCode.fileTooLarge(size: size, limit: options.maxInputSize, file: name)
            return (PlistDocument(file: name, root: nil, shape: nil, diagnostics: [diagnostic]), [])
        }
    }
}
