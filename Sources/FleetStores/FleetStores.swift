import Fleet
import FleetStorePostgres
import FleetStoreSQLite
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opens the store a `--store` value names, with either driver; the one place that knows both.
public enum FleetStores {
    /// The store at `location` (nil for `none`), created and migrated when needed. Throws `FleetStoreError` with
    /// `.unusable` or `.tooNew` when it cannot be used (exit 78). `connectTimeout` bounds PostgreSQL's first
    /// answer (connection and migrations).
    public static func open(
        _ location: StoreLocation, logger: Logger, connectTimeout: Duration = .seconds(10)
    ) async throws -> (any FleetStore)? {
        switch location {
        case .none: return nil
        case .sqlite(let path):
            try ensureParentFolder(of: path)
            return try await SQLiteFleetStore.open(path: path, logger: logger)
        case .postgres(let postgres):
            return try await PostgresFleetStore.open(postgres, logger: logger, connectTimeout: connectTimeout)
        }
    }

    /// Where `mdmconf serve CATALOG` keeps its fleet when no `--store` is given: outside the catalog folder, in
    /// `$XDG_STATE_HOME/mdmconf` (else `~/.local/state/mdmconf`), one file per catalog folder named after it.
    public static func defaultSQLitePath(forCatalog catalog: String) -> String {
        let environment = { (name: String) -> String? in getenv(name).map { String(cString: $0) } }
        let base =
            environment("XDG_STATE_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment("HOME") ?? "/tmp") + "/.local/state")
        var absolute = catalog
        if !absolute.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: 4096)
            if let cwd = getcwd(&buffer, buffer.count) { absolute = String(cString: cwd) + "/" + catalog }
        }
        // A readable name plus a hash of the full path, so two catalogs with one folder name do not share a store.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in absolute.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let name = absolute.split(separator: "/").last.map(String.init) ?? "catalog"
        let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        let hex = String(hash, radix: 16)
        return "\(base)/mdmconf/fleet-\(safe)-\(hex.prefix(8)).sqlite"
    }

    static func ensureParentFolder(of path: String) throws {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let folder = String(path[..<slash])
        var partial = ""
        for component in folder.split(separator: "/", omittingEmptySubsequences: false) {
            partial +=
                partial.isEmpty && folder.hasPrefix("/") ? "/" + component : (partial.isEmpty ? "" : "/") + component
            if partial.isEmpty || partial == "/" { continue }
            if mkdir(partial, 0o755) != 0 && errno != EEXIST {
                throw FleetStoreError(
                    .unusable, "cannot create the folder \(partial) for the store: \(String(cString: strerror(errno)))")
            }
        }
    }
}
