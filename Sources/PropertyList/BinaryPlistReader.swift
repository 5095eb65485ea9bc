import MDMDiagnostics

/// Reads `bplist00` binary property lists into the same value model; positions are byte offsets.
///
/// Every offset, reference and count is checked against the input before it is used, containers that
/// contain themselves are refused, and objects shared by several containers are expanded only up to the
/// reader's node limit, so a small hostile file cannot make a large tree.
public struct BinaryPlistReader: Sendable {
    /// The limits the plist is read with.
    public var options: PlistReaderOptions

    /// A reader with `options`.
    public init(options: PlistReaderOptions = PlistReaderOptions()) { self.options = options }

    /// The first eight bytes of every binary plist.
    public static let magic: [UInt8] = Array("bplist00".utf8)

    /// The plist in `bytes`, findings reported against `file`; positions are byte offsets.
    public func read(_ bytes: [UInt8], file: String) -> PlistDocument {
        var parser = Parser(bytes: bytes, options: options)
        do {
            let root = try parser.parse()
            return PlistDocument(
                file: file, root: root, shape: .binary, diagnostics: PlistTextRules.findings(in: root, file: file))
        } catch {
            let diagnostic = Diagnostic(
                error.code, severity: .error, message: error.message,
                location: SourceLocation(file: file, position: .byteOffset(error.offset)),
                keyPath: KeyPath(error.path.reversed()).diagnosticValue, hint: error.hint)
            return PlistDocument(file: file, root: nil, shape: .binary, diagnostics: [diagnostic])
        }
    }

    struct Failure: Error {
        var code: DiagnosticCode
        var message: String
        var offset: Int
        var hint: String?
        /// Innermost component first; reversed when reported.
        var path: [KeyPath.Component] = []
    }

    private struct Trailer {
        var offsetSize: Int
        var referenceSize: Int
        var objectCount: Int
        var topObject: Int
        var tableOffset: Int
    }

    private struct Parser {
        let bytes: [UInt8]
        let options: PlistReaderOptions
        var trailer = Trailer(offsetSize: 0, referenceSize: 0, objectCount: 0, topObject: 0, tableOffset: 0)
        var onPath: [Bool] = []

        init(bytes: [UInt8], options: PlistReaderOptions) {
            self.bytes = bytes
            self.options = options
        }

        func quotedKey(_ key: String) -> String {
            "'" + (key.count > 80 ? String(key.prefix(77)) + "…" : key) + "'"
        }

        func damaged(_ message: String, at offset: Int, hint: String? = nil) -> Failure {
            Failure(code: PlistCode.invalidBinary, message: message, offset: offset, hint: hint)
        }

        mutating func parse() throws(Failure) -> PlistNode {
            guard bytes.count <= options.maxInputSize else {
                throw Failure(
                    code: PlistCode.fileTooLarge,
                    message: "input is \(bytes.count) bytes, more than the limit of \(options.maxInputSize)", offset: 0)
            }
            guard bytes.count >= 8 + 1 + 32, bytes.starts(with: BinaryPlistReader.magic) else {
                throw damaged("binary plist is too short to hold a header, an object and a trailer", at: 0)
            }
            let start = bytes.count - 32
            let offsetSize = Int(bytes[start + 6])
            let referenceSize = Int(bytes[start + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
                throw damaged(
                    "trailer has offset size \(offsetSize) and reference size \(referenceSize); each must be 1 to 8",
                    at: start + 6)
            }
            let objectCount = readUnsigned(at: start + 8, size: 8)
            let topObject = readUnsigned(at: start + 16, size: 8)
            let tableOffset = readUnsigned(at: start + 24, size: 8)
            guard objectCount >= 1, objectCount <= UInt64(options.maxNodes) else {
                throw damaged("trailer declares \(objectCount) objects", at: start + 8)
            }
            guard topObject < objectCount else {
                throw damaged("top object \(topObject) is not among the \(objectCount) objects", at: start + 16)
            }
            let tableSize = objectCount.multipliedReportingOverflow(by: UInt64(offsetSize))
            guard tableOffset >= 9, !tableSize.overflow, tableOffset <= UInt64(start),
                tableSize.partialValue <= UInt64(start) - tableOffset
            else {
                throw damaged(
                    "offset table at \(tableOffset) does not fit between the header and the trailer", at: start + 24)
            }
            trailer = Trailer(
                offsetSize: offsetSize, referenceSize: referenceSize, objectCount: Int(objectCount),
                topObject: Int(topObject), tableOffset: Int(tableOffset))
            onPath = Array(repeating: false, count: Int(objectCount))
            var sizes = [UInt64?](repeating: nil, count: Int(objectCount))
            let expanded = try expandedSize(Int(topObject), depth: 0, sizes: &sizes)
            guard expanded <= UInt64(options.maxNodes) else {
                throw Failure(
                    code: PlistCode.tooManyNodes,
                    message: "binary plist expands to more than \(options.maxNodes) values",
                    offset: try offset(of: Int(topObject)),
                    hint: "shared objects are expanded once per use; this file multiplies them")
            }
            for index in onPath.indices { onPath[index] = false }
            return try object(Int(topObject), depth: 0)
        }

        /// How many values object `reference` becomes once shared objects are expanded, saturating, without
        /// building anything: a small file that references one container many times is refused at once.
        /// Cycles and excess depth are left for `object(_:depth:)` to report with their key paths.
        mutating func expandedSize(_ reference: Int, depth: Int, sizes: inout [UInt64?]) throws(Failure) -> UInt64 {
            guard reference < trailer.objectCount, depth < options.maxDepth, !onPath[reference] else { return 1 }
            if let known = sizes[reference] { return known }
            let offset = try offset(of: reference)
            let marker = bytes[offset] >> 4
            guard marker == 0xA || marker == 0xD else { return 1 }
            let (count, start) = try count(marker: offset)
            let references = marker == 0xA ? count : 2 * count
            try requireSpace(references, of: trailer.referenceSize, at: start, what: "container", marker: offset)
            onPath[reference] = true
            var total: UInt64 = 1
            for index in 0..<references {
                let child = objectReference(at: start + index * trailer.referenceSize)
                let (sum, overflow) = total.addingReportingOverflow(
                    try expandedSize(child, depth: depth + 1, sizes: &sizes))
                total = overflow ? .max : sum
            }
            onPath[reference] = false
            sizes[reference] = total
            return total
        }

        /// An object reference; one too large for `Int` becomes `Int.max`, which no object has (8-byte
        /// references in a damaged file would otherwise trap; found by fuzzing).
        func objectReference(at offset: Int) -> Int {
            let value = readUnsigned(at: offset, size: trailer.referenceSize)
            return value > UInt64(Int.max) ? Int.max : Int(value)
        }

        func readUnsigned(at offset: Int, size: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in offset..<offset + size { value = value << 8 | UInt64(bytes[index]) }
            return value
        }

        /// The byte offset of object `reference`, checked to lie between the header and the offset table.
        func offset(of reference: Int) throws(Failure) -> Int {
            let entry = trailer.tableOffset + reference * trailer.offsetSize
            let offset = readUnsigned(at: entry, size: trailer.offsetSize)
            guard offset >= 8, offset < UInt64(trailer.tableOffset) else {
                throw damaged("object \(reference) has offset \(offset), outside the object area", at: entry)
            }
            return Int(offset)
        }

        /// Checks that `count` items of `size` bytes starting at `offset` end before the offset table.
        func requireSpace(_ count: Int, of size: Int, at offset: Int, what: String, marker: Int) throws(Failure) {
            let (total, overflow) = count.multipliedReportingOverflow(by: size)
            guard !overflow, offset <= trailer.tableOffset, total <= trailer.tableOffset - offset else {
                throw damaged("\(what) claims \(count) items, more than the file holds", at: marker)
            }
        }

        /// The length of a variable-size object: the marker's low nibble, or an integer object after it.
        func count(marker offset: Int) throws(Failure) -> (count: Int, dataStart: Int) {
            let nibble = Int(bytes[offset] & 0x0F)
            guard nibble == 0x0F else { return (nibble, offset + 1) }
            let intOffset = offset + 1
            guard intOffset < trailer.tableOffset, bytes[intOffset] & 0xF0 == 0x10 else {
                throw damaged("object's length is not followed by an integer", at: offset)
            }
            let size = 1 << Int(bytes[intOffset] & 0x0F)
            guard size <= 8, intOffset + 1 + size <= trailer.tableOffset else {
                throw damaged("object's length integer is malformed", at: intOffset)
            }
            let value = readUnsigned(at: intOffset + 1, size: size)
            guard value <= UInt64(Int.max / 8) else { throw damaged("object claims length \(value)", at: offset) }
            return (Int(value), intOffset + 1 + size)
        }

        mutating func object(_ reference: Int, depth: Int) throws(Failure) -> PlistNode {
            guard reference < trailer.objectCount else {
                throw damaged(
                    "reference to object \(reference); there are \(trailer.objectCount)", at: trailer.tableOffset)
            }
            guard depth < options.maxDepth else {
                throw Failure(
                    code: PlistCode.nestingTooDeep,
                    message: "containers are nested deeper than \(options.maxDepth) levels",
                    offset: try offset(of: reference))
            }
            let offset = try offset(of: reference)
            let marker = bytes[offset]
            let position = SourcePosition.byteOffset(offset)
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: return PlistNode(.boolean(false), at: position)
                case 0x09: return PlistNode(.boolean(true), at: position)
                default:
                    throw Failure(
                        code: PlistCode.unsupportedBinaryObject,
                        message: marker == 0
                            ? "null object has no plist form" : "unknown object marker 0x\(hex(marker))",
                        offset: offset)
                }
            case 0x1:
                return PlistNode(.integer(try integer(at: offset)), at: position)
            case 0x2:
                let size = 1 << Int(marker & 0x0F)
                guard size == 4 || size == 8, offset + 1 + size <= trailer.tableOffset else {
                    throw damaged("real of \(size) bytes", at: offset)
                }
                let raw = readUnsigned(at: offset + 1, size: size)
                let value = size == 4 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw)
                return PlistNode(.real(value), at: position)
            case 0x3: return PlistNode(.date(try date(marker: marker, at: offset)), at: position)
            case 0x4:
                let (count, start) = try count(marker: offset)
                try requireSpace(count, of: 1, at: start, what: "data", marker: offset)
                return PlistNode(.data(Array(bytes[start..<start + count])), at: position)
            case 0x5:
                let (count, start) = try count(marker: offset)
                try requireSpace(count, of: 1, at: start, what: "ASCII string", marker: offset)
                let slice = bytes[start..<start + count]
                guard slice.allSatisfy({ $0 < 0x80 }) else {
                    throw damaged("ASCII string holds a non-ASCII byte", at: offset)
                }
                return PlistNode(.string(String(decoding: slice, as: UTF8.self)), at: position)
            case 0x6: return PlistNode(.string(try utf16String(at: offset)), at: position)
            case 0xA: return PlistNode(.array(try array(reference, at: offset, depth: depth)), at: position)
            case 0xD: return PlistNode(.dictionary(try dictionary(reference, at: offset, depth: depth)), at: position)
            default: throw unsupported(marker, at: offset)
            }
        }

        /// The date object whose marker is at `offset`.
        func date(marker: UInt8, at offset: Int) throws(Failure) -> PlistDate {
            guard marker == 0x33, offset + 9 <= trailer.tableOffset else {
                throw damaged("malformed date", at: offset)
            }
            let seconds = Double(bitPattern: readUnsigned(at: offset + 1, size: 8))
            // The value model holds whole seconds, what an XML plist can write: a fraction is dropped here, as
            // Apple's XML writer drops it, so every date read can be written in every format and read back equal.
            let date = PlistDate(secondsSince1970: (seconds + PlistDate.referenceDateOffset).rounded(.down))
            guard PlistDate.holds(secondsSince1970: date.secondsSince1970) else {
                throw damaged(
                    "date of \(seconds) seconds after 2001-01-01 is outside the years 1 to 9999", at: offset,
                    hint: "no plist writer can express it; the file is damaged or was written by a broken tool")
            }
            return date
        }

        /// The UTF-16 (big-endian) string object whose marker is at `offset`.
        func utf16String(at offset: Int) throws(Failure) -> String {
            let (count, start) = try count(marker: offset)
            try requireSpace(count, of: 2, at: start, what: "UTF-16 string", marker: offset)
            var units: [UInt16] = []
            units.reserveCapacity(count)
            for index in 0..<count {
                units.append(UInt16(bytes[start + 2 * index]) << 8 | UInt16(bytes[start + 2 * index + 1]))
            }
            var text = ""
            var decoder = UTF16()
            var iterator = units.makeIterator()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): text.unicodeScalars.append(scalar)
                case .emptyInput: return text
                case .error: throw damaged("UTF-16 string holds an unpaired surrogate", at: offset)
                }
            }
        }

        /// The items of array object `reference`, whose marker is at `offset`.
        mutating func array(_ reference: Int, at offset: Int, depth: Int) throws(Failure) -> [PlistNode] {
            let (count, start) = try count(marker: offset)
            try requireSpace(count, of: trailer.referenceSize, at: start, what: "array", marker: offset)
            try enter(reference, at: offset)
            var items: [PlistNode] = []
            items.reserveCapacity(count)
            for index in 0..<count {
                let child = objectReference(at: start + index * trailer.referenceSize)
                do {
                    items.append(try object(child, depth: depth + 1))
                } catch {
                    var failure = error
                    failure.path.append(.index(index))
                    throw failure
                }
            }
            onPath[reference] = false
            return items
        }

        /// The entries of dictionary object `reference`, whose marker is at `offset`.
        mutating func dictionary(_ reference: Int, at offset: Int, depth: Int) throws(Failure) -> PlistDictionary {
            let (count, start) = try count(marker: offset)
            try requireSpace(count, of: 2 * trailer.referenceSize, at: start, what: "dictionary", marker: offset)
            try enter(reference, at: offset)
            var entries: [PlistDictionary.Entry] = []
            entries.reserveCapacity(count)
            var keys = Set<String>()
            for index in 0..<count {
                let keyReference = objectReference(at: start + index * trailer.referenceSize)
                let valueReference = objectReference(at: start + (count + index) * trailer.referenceSize)
                let keyNode = try object(keyReference, depth: depth + 1)
                guard case .string(let key) = keyNode.value else {
                    throw damaged("dictionary key is a \(keyNode.value.typeName), not a string", at: offset)
                }
                // As the XML and JSON readers: a key twice is an error (no format can write it back, and
                // readers disagree which value wins).
                guard keys.insert(key).inserted else {
                    throw Failure(
                        code: PlistCode.duplicateKey, message: "duplicate key \(quotedKey(key))", offset: offset,
                        hint: "readers disagree which value wins; the file was written by a broken tool",
                        path: [.key(key)])
                }
                do {
                    let value = try object(valueReference, depth: depth + 1)
                    entries.append(PlistDictionary.Entry(key: key, keyPosition: keyNode.position, value: value))
                } catch {
                    var failure = error
                    failure.path.append(.key(key))
                    throw failure
                }
            }
            onPath[reference] = false
            return PlistDictionary(entries)
        }

        /// The failure of an object kind a plist cannot hold (UIDs, sets) or an unknown marker.
        func unsupported(_ marker: UInt8, at offset: Int) -> Failure {
            let kind: String
            switch marker >> 4 {
            case 0x8: kind = "UID object (NSKeyedArchiver data)"
            case 0xC: kind = "set object"
            default: kind = "unknown object marker 0x\(hex(marker))"
            }
            return Failure(
                code: PlistCode.unsupportedBinaryObject, message: "\(kind) has no plist form", offset: offset,
                hint: marker >> 4 == 0x8 ? "this is an archive of objects, not a configuration" : nil)
        }

        mutating func enter(_ reference: Int, at offset: Int) throws(Failure) {
            guard !onPath[reference] else {
                throw Failure(
                    code: PlistCode.binaryCycle, message: "container object \(reference) contains itself",
                    offset: offset)
            }
            onPath[reference] = true
        }

        func integer(at offset: Int) throws(Failure) -> Int64 {
            let size = 1 << Int(bytes[offset] & 0x0F)
            guard size <= 16, offset + 1 + size <= trailer.tableOffset else {
                throw damaged("integer of \(size) bytes", at: offset)
            }
            switch size {
            case 1, 2, 4: return Int64(readUnsigned(at: offset + 1, size: size))
            case 8: return Int64(bitPattern: readUnsigned(at: offset + 1, size: 8))
            default:
                let high = readUnsigned(at: offset + 1, size: 8)
                let low = Int64(bitPattern: readUnsigned(at: offset + 9, size: 8))
                if (high == 0 && low >= 0) || (high == UInt64.max && low < 0) { return low }
                throw Failure(
                    code: PlistCode.integerOverflow, message: "128-bit integer does not fit in 64 bits", offset: offset)
            }
        }

        func hex(_ byte: UInt8) -> String {
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }
    }
}
