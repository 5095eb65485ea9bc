import ConfigSchema
import Foundation
import PropertyList

/// Schemas found on the search path, kept compiled on disk between runs (`CompiledSchema`), so checking a profile
/// reads each payload schema's binary form instead of importing its YAML again.
///
/// One file per schema, `$XDG_CACHE_HOME/mdmconf/compiled-<version>/<hash of the schema's absolute path>.schema`
/// (`~/.cache/…` without `XDG_CACHE_HOME`). Its header holds what the schema was made from: the schema file's path, size
/// and modification time (to the nanosecond), the reader limits it was read with, and the size and modification time
/// of the mdmconf executable that wrote it. A file whose header differs in any of them is imported again and
/// rewritten (atomically), so editing a schema or installing another build of mdmconf never serves a stale schema.
/// A cache that cannot be read or written only costs the imports it would have saved.
///
/// Android restrictions are not kept: what they import to also depends on the app's `res/` files.
struct CompiledSchemaCache: Sendable {
    /// The folder of compiled schemas; nil when there is no home or cache folder.
    let folder: String?

    init() {
        folder = InputPaths.cacheFolder().map { "\($0)/compiled-\(CompiledSchema.version)" }
    }

    /// The usable schema in `path`: from its compiled form when that is current, else imported with `loader` (and
    /// kept for next time). Nil when the file is not a usable schema.
    func schema(_ path: String, loader: SchemaLoader) -> ConfigSchema? {
        guard let folder, let program = Self.program, let source = InputPaths.stamp(of: path) else {
            return Self.load(path, loader)
        }
        // Named by the absolute path rather than the real one: resolving links costs a `readlink` per component,
        // and a schema reached by two paths is only kept twice. The path is in the header too, so two paths whose
        // names hash alike never read each other's schema.
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var header = Self.magic + Array(absolute.utf8) + [0]
        for number in [
            program.size, program.mtime, source.size, source.mtime, Int64(loader.readerOptions.maxInputSize),
            Int64(loader.readerOptions.maxNodes), Int64(loader.readerOptions.maxDepth),
            Int64(loader.readerOptions.maxTextLength),
        ] {
            withUnsafeBytes(of: number.littleEndian) { header += $0 }
        }
        let file = "\(folder)/\(InputPaths.nameHash(absolute)).schema"
        if case .bytes(let stored)? = try? InputFile.read(file, limit: 64 << 20), stored.starts(with: header),
            let schema = try? CompiledSchema.decode(Array(stored[header.count...]), path: path)
        {
            return schema
        }
        guard let schema = Self.load(path, loader) else { return nil }
        guard schema.format != .android else { return schema }
        let bytes = header + CompiledSchema.encode(schema)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try? Data(bytes).write(to: URL(fileURLWithPath: file), options: .atomic)
        return schema
    }

    private static let magic = Array("mdmconf compiled schema\n".utf8)

    private static func load(_ path: String, _ loader: SchemaLoader) -> ConfigSchema? {
        (try? loader.load(path))?.load.usableSchema
    }

    /// The running executable's stamp: what a compiled schema was compiled by.
    private static let program: InputPaths.Stamp? = SchemaDiscovery.executablePath.flatMap(InputPaths.stamp(of:))
}
