import Foundation
import MDMDiagnostics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the client keeps between launches for one app: the last configuration that was fetched and parsed, and
/// the last update decision, with when each came and the app version the decision was made for.
///
/// One JSON file per app (`<cache>/<app>.mdmconf-cache.json`), replaced atomically: written to a temporary file
/// in the same folder, flushed to disk, then renamed over the old one, so a crash or a full disk leaves either the
/// old file or the new one, never half of one. A file that does not parse is ignored (and replaced at the next
/// good answer).
struct CachedState: Equatable, Sendable {
    struct Config: Equatable, Sendable {
        var etag: String
        var fetchedAt: Date
        /// The configuration's bytes exactly as served: an XML plist, or JSON for an Android device.
        var plist: String
    }

    struct Decision: Equatable, Sendable {
        /// The decision document as the server sent it.
        var document: String
        var decidedAt: Date
        /// The app version and OS version the decision was made for.
        var version: String
        var osVersion: String?
    }

    var config: Config?
    var decision: Decision?

    static let format = 1

    func encoded() -> [UInt8] {
        var object: [(String, JSONValue)] = [("format", .integer(Self.format))]
        if let config {
            object.append(
                (
                    "config",
                    .object([
                        ("etag", .string(config.etag)),
                        ("fetchedAt", .number(String(config.fetchedAt.timeIntervalSince1970))),
                        ("plist", .string(config.plist)),
                    ])
                ))
        }
        if let decision {
            object.append(
                (
                    "decision",
                    .object([
                        ("document", .string(decision.document)),
                        ("decidedAt", .number(String(decision.decidedAt.timeIntervalSince1970))),
                        ("version", .string(decision.version)), ("osVersion", .optional(decision.osVersion)),
                    ])
                ))
        }
        return Array(JSONValue.object(object).serialized(pretty: false).utf8)
    }

    /// The state in `bytes`, or nil when they are not a whole cache file of this format.
    static func decode(_ bytes: [UInt8]) -> CachedState? {
        guard let object = JSON.read(bytes)?.dictionary, object["format"]?.value.integer == Int64(format) else {
            return nil
        }
        var state = CachedState()
        if let config = object["config"] {
            guard let config = config.value.dictionary, let etag = config["etag"]?.value.string,
                let fetchedAt = config["fetchedAt"]?.value.real, let plist = config["plist"]?.value.string
            else { return nil }
            state.config = Config(etag: etag, fetchedAt: Date(timeIntervalSince1970: fetchedAt), plist: plist)
        }
        if let decision = object["decision"] {
            guard let decision = decision.value.dictionary, let document = decision["document"]?.value.string,
                let decidedAt = decision["decidedAt"]?.value.real, let version = decision["version"]?.value.string
            else { return nil }
            state.decision = Decision(
                document: document, decidedAt: Date(timeIntervalSince1970: decidedAt), version: version,
                osVersion: decision["osVersion"]?.value.string)
        }
        return state
    }
}

/// The cache folder of one client.
struct ClientCache: Sendable {
    let file: URL

    init(folder: URL, app: String) {
        file = folder.appendingPathComponent("\(app).mdmconf-cache.json")
    }

    /// The stored state; `discarded` is true when a file was there but could not be used.
    func load() -> (state: CachedState?, discarded: Bool) {
        guard let data = FileManager.default.contents(atPath: file.path) else { return (nil, false) }
        guard let state = CachedState.decode([UInt8](data)) else { return (nil, true) }
        return (state, false)
    }

    /// Replaces the stored state atomically (see ``CachedState``).
    func store(_ state: CachedState) throws {
        try Self.writeAtomically(state.encoded(), to: file)
    }

    /// A test seam, never set by an app: with `MDMCONF_TEST_HOLD_CACHE_WRITE` naming a file, a cache write stops
    /// halfway through its bytes, creates that file and waits to be killed. A test kills the process there, in
    /// the middle of every write it holds, and checks that the cache is still the old one, whole.
    static let holdEnvironmentVariable = "MDMCONF_TEST_HOLD_CACHE_WRITE"

    /// Writes `bytes` to a temporary file beside `target`, flushes it, renames it over `target` and flushes the
    /// folder. Throws with the system's reason; `target` is then unchanged.
    static func writeAtomically(_ bytes: [UInt8], to target: URL) throws {
        let hold = getenv(holdEnvironmentVariable).map { String(cString: $0) }
        let folder = target.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(
            ".\(target.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw CacheError(path: temporary.path, errno: errno) }
        var written = 0
        while written < bytes.count {
            if let hold, written >= bytes.count / 2 { holdUntilKilled(marker: hold) }
            let chunk = hold == nil ? bytes.count - written : max(1, bytes.count / 2 - written)
            let result = bytes.withUnsafeBytes { buffer in
                buffer.baseAddress.map { write(fd, $0 + written, chunk) } ?? 0
            }
            if result < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                unlink(temporary.path)
                throw CacheError(path: temporary.path, errno: code)
            }
            written += result
        }
        if fsync(fd) != 0 || close(fd) != 0 {
            let code = errno
            unlink(temporary.path)
            throw CacheError(path: temporary.path, errno: code)
        }
        guard rename(temporary.path, target.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw CacheError(path: target.path, errno: code)
        }
        let dir = open(folder.path, O_RDONLY)
        if dir >= 0 {
            _ = fsync(dir)
            close(dir)
        }
    }
}

/// The seam of ``ClientCache/holdEnvironmentVariable``: says where it stopped, then waits for the signal.
private func holdUntilKilled(marker: String) -> Never {
    let fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    if fd >= 0 { close(fd) }
    while true { pause() }
}

struct CacheError: Error, CustomStringConvertible {
    var path: String
    var errno: Int32
    var description: String { "\(path): \(String(cString: strerror(errno)))" }
}
