import MDMDiagnostics
import PropertyList

/// A schema in a compact binary form: everything the importer made of its file, so a schema imported once is
/// loaded again without parsing its YAML or XML. Reading one of Apple's payload schemas back from this form takes a
/// small fraction of importing it, and importing was most of validating one profile.
///
/// The form is private to one build of mdmconf: a cache keeps it beside the identity of the program that wrote it
/// (see `CompiledSchemaCache` in MDMConf) and never hands it to another build. `decode` checks every length and tag
/// and throws on anything it did not write, so a damaged file is a cache miss, never a wrong schema.
public enum CompiledSchema {
    /// Raised whenever what is written changes shape.
    public static let version: UInt32 = 2

    /// The bytes of `schema`.
    public static func encode(_ schema: ConfigSchema) -> [UInt8] {
        var body = SchemaWriter()
        body.bytes.reserveCapacity(4096)
        body.string(schema.id)
        body.string(schema.format.rawValue)
        body.optional(schema.title) { $0.string($1) }
        body.optional(schema.description) { $0.string($1) }
        body.optional(schema.apple) { $0.appleSchema($1) }
        body.array(schema.keys) { $0.key($1) }
        // The distinct availabilities come first (after the distinct rule maps they name): most keys of a payload
        // share their payload's, and each is read once and shared by every key that names it.
        var writer = SchemaWriter()
        writer.uint(UInt64(version))
        writer.array(body.ruleMaps) { $0.bytes += $1 }
        writer.array(body.availabilities) { $0.bytes += $1 }
        writer.bytes += body.bytes
        return writer.bytes
    }

    /// The schema `bytes` hold, as read from `path`; throws when they are not what `encode` wrote.
    public static func decode(_ bytes: [UInt8], path: String) throws(CompiledSchemaError) -> ConfigSchema {
        var reader = SchemaReader(bytes: bytes)
        guard try reader.uint() == UInt64(version) else { throw CompiledSchemaError() }
        reader.ruleMaps = try reader.array { r throws(CompiledSchemaError) in try r.ruleMap() }
        reader.availabilities = try reader.array { r throws(CompiledSchemaError) in try r.availabilityValue() }
        let id = try reader.string()
        guard let format = ConfigSchema.Format(rawValue: try reader.string()) else { throw CompiledSchemaError() }
        let title = try reader.optional { r throws(CompiledSchemaError) in try r.string() }
        var schema = ConfigSchema(id: id, format: format, path: path, title: title, keys: [])
        schema.description = try reader.optional { r throws(CompiledSchemaError) in try r.string() }
        schema.apple = try reader.optional { r throws(CompiledSchemaError) in try r.appleSchema() }
        schema.keys = try reader.array { r throws(CompiledSchemaError) in try r.key() }
        guard reader.atEnd else { throw CompiledSchemaError() }
        return schema
    }
}

/// Bytes that are not a compiled schema of this build.
public struct CompiledSchemaError: Error, Sendable {}

/// Writes values as LEB128 varints, length-prefixed UTF-8 and tags.
struct SchemaWriter {
    var bytes: [UInt8] = []
    /// Each distinct availability written, as its bytes; keys name one by its place here.
    var availabilities: [[UInt8]] = []
    /// Where each availability's bytes are in `availabilities`.
    var availabilityIndex: [[UInt8]: Int] = [:]
    /// Each distinct map of per-platform rules written, as its bytes; availabilities name one by its place here.
    var ruleMaps: [[UInt8]] = []
    /// Where each rule map's bytes are in `ruleMaps`.
    var ruleMapIndex: [[UInt8]: Int] = [:]

    mutating func uint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A signed integer, zig-zag encoded so small negative numbers stay short.
    mutating func int(_ value: Int) { int64(Int64(value)) }

    mutating func int64(_ value: Int64) { uint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func double(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            uint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func optional<T>(_ value: T?, _ write: (inout SchemaWriter, T) -> Void) {
        guard let value else { return bytes.append(0) }
        bytes.append(1)
        write(&self, value)
    }

    mutating func array<T>(_ values: [T], _ write: (inout SchemaWriter, T) -> Void) {
        uint(UInt64(values.count))
        for value in values { write(&self, value) }
    }

    /// A dictionary in key order, so the same schema always gives the same bytes.
    mutating func map<T>(_ values: [String: T], _ write: (inout SchemaWriter, T) -> Void) {
        uint(UInt64(values.count))
        for key in values.keys.sorted() {
            string(key)
            write(&self, values[key]!)
        }
    }

    mutating func strings(_ values: [String]) { array(values) { $0.string($1) } }
}

/// Reads what `SchemaWriter` wrote, checking every length against what is left.
struct SchemaReader {
    let bytes: [UInt8]
    var offset = 0
    /// The schema's distinct availabilities, read first.
    var availabilities: [Availability] = []
    /// The distinct maps of per-platform rules the availabilities name, read before them.
    var ruleMaps: [[String: PlatformRules]] = []

    init(bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { offset == bytes.count }

    mutating func byte() throws(CompiledSchemaError) -> UInt8 {
        guard offset < bytes.count else { throw CompiledSchemaError() }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint() throws(CompiledSchemaError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try byte()
            guard shift < 64 else { throw CompiledSchemaError() }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    mutating func int() throws(CompiledSchemaError) -> Int { Int(truncatingIfNeeded: try int64()) }

    mutating func int64() throws(CompiledSchemaError) -> Int64 {
        let raw = try uint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A count of things each at least one byte long, so a damaged count cannot ask for more than is left.
    mutating func count() throws(CompiledSchemaError) -> Int {
        let count = try uint()
        guard count <= UInt64(bytes.count - offset) else { throw CompiledSchemaError() }
        return Int(count)
    }

    mutating func bool() throws(CompiledSchemaError) -> Bool {
        switch try byte() {
        case 0: false
        case 1: true
        default: throw CompiledSchemaError()
        }
    }

    mutating func double() throws(CompiledSchemaError) -> Double {
        guard bytes.count - offset >= 8 else { throw CompiledSchemaError() }
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        offset += 8
        return Double(bitPattern: bits)
    }

    mutating func string() throws(CompiledSchemaError) -> String {
        let count = try count()
        defer { offset += count }
        return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
    }

    mutating func optional<T>(_ read: (inout SchemaReader) throws(CompiledSchemaError) -> T)
        throws(CompiledSchemaError) -> T?
    {
        try bool() ? try read(&self) : nil
    }

    mutating func array<T>(_ read: (inout SchemaReader) throws(CompiledSchemaError) -> T)
        throws(CompiledSchemaError) -> [T]
    {
        let count = try count()
        guard count > 0 else { return [] }
        var values: [T] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try read(&self)) }
        return values
    }

    mutating func map<T>(_ read: (inout SchemaReader) throws(CompiledSchemaError) -> T)
        throws(CompiledSchemaError) -> [String: T]
    {
        let count = try count()
        guard count > 0 else { return [:] }
        var values: [String: T] = [:]
        values.reserveCapacity(count)
        for _ in 0..<count {
            let key = try string()
            values[key] = try read(&self)
        }
        return values
    }

    mutating func strings() throws(CompiledSchemaError) -> [String] {
        try array { r throws(CompiledSchemaError) in try r.string() }
    }

    /// A value of a `RawRepresentable` string enum.
    mutating func raw<T: RawRepresentable>(_: T.Type) throws(CompiledSchemaError) -> T where T.RawValue == String {
        guard let value = T(rawValue: try string()) else { throw CompiledSchemaError() }
        return value
    }
}
