extension UpdateRequest {
    /// A request read straight from the bytes of a JSON body in the form apps send: one flat object whose values are
    /// strings, integers and `null`, all in ASCII with no escapes. The same request, or the same reasons, as
    /// `parse(_:)` of the node the JSON reader would make of it, without making the node.
    ///
    /// nil for any other body (nested values, escapes, other bytes, duplicate members, anything malformed): the
    /// JSON reader must read it, and say what is wrong with it.
    public static func parse(flatJSON body: [UInt8]) -> Result<UpdateRequest, RequestErrors>? {
        body.withUnsafeBytes { parse(flatJSON: $0) }
    }

    /// `parse(flatJSON:)` of bytes in place (a connection's buffer).
    public static func parse(flatJSON body: UnsafeRawBufferPointer) -> Result<UpdateRequest, RequestErrors>? {
        var slots = emptySlots
        var seenSlots: UInt16 = 0
        var seenOthers: [Range<Int>] = []
        var unknown = 0
        var typeErrors: [String] = []
        let bytes = body.bindMemory(to: UInt8.self)
        var reader = FlatJSON(bytes: bytes)
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        if !reader.take(UInt8(ascii: "}")) {
            repeat {
                guard let key = reader.stringRange(), reader.take(UInt8(ascii: ":")) else { return nil }
                let keyBytes = UnsafeBufferPointer(rebasing: bytes[key])
                let slot = slot(of: keyBytes)
                // A member given twice is the general reader's to judge.
                if let slot {
                    guard seenSlots & (1 << slot) == 0 else { return nil }
                    seenSlots |= 1 << slot
                } else {
                    guard !seenOthers.contains(where: { bytes[$0].elementsEqual(keyBytes) }) else { return nil }
                    seenOthers.append(key)
                }
                guard let value = reader.value() else { return nil }
                guard let slot else {
                    if !keyBytes.starts(with: "x-".utf8) { unknown += 1 }
                    continue
                }
                let member: MemberValue =
                    switch value {
                    case .null: .absent
                    case .string(let range):
                        .string(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
                    case .integer(let number): .integer(number)
                    }
                take(member, slot: slot, into: &slots, typeErrors: &typeErrors)
            } while reader.take(UInt8(ascii: ","))
            guard reader.take(UInt8(ascii: "}")) else { return nil }
        }
        guard reader.atEnd else { return nil }
        switch parse(slots: slots, unknownFields: unknown) {
        case .success(let request) where typeErrors.isEmpty: return .success(request)
        case .success: return .failure(RequestErrors(reasons: typeErrors))
        case .failure(let errors): return .failure(RequestErrors(reasons: errors.reasons + typeErrors))
        }
    }
}

/// The few JSON tokens a flat request body has, read from its bytes; any other byte ends the reading.
private struct FlatJSON {
    enum Value {
        case null
        /// Where the string's text is (between its quotes).
        case string(Range<Int>)
        case integer(Int64)
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var atEnd: Bool {
        mutating get {
            skipSpace()
            return index == bytes.count
        }
    }

    mutating func skipSpace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
        {
            index += 1
        }
    }

    /// Takes `byte` (after any space) when it comes next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Where a string of printable ASCII without escapes is.
    mutating func stringRange() -> Range<Int>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return start..<index
            }
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    /// `null`, a string, or an integer of at most 18 digits.
    mutating func value() -> Value? {
        skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return stringRange().map(Value.string)
        case UInt8(ascii: "n"):
            guard bytes.count - index >= 4, bytes[index + 1] == UInt8(ascii: "u"),
                bytes[index + 2] == UInt8(ascii: "l"),
                bytes[index + 3] == UInt8(ascii: "l")
            else { return nil }
            index += 4
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let negative = bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            let start = index
            var number: Int64 = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, index - start < 18 {
                number = number * 10 + Int64(bytes[index] - 0x30)
                index += 1
            }
            // No digits, a leading zero before more digits, or more than 18 of them: the general reader decides.
            guard index > start, !(bytes[start] == 0x30 && index - start > 1) else { return nil }
            if index < bytes.count,
                (0x30...0x39).contains(bytes[index]) || bytes[index] == UInt8(ascii: ".")
                    || bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")
            {
                return nil
            }
            // `-0` the general reader may read otherwise.
            guard !(negative && number == 0) else { return nil }
            return .integer(negative ? -number : number)
        default:
            return nil
        }
    }
}

extension UpdateRequest {
    /// The request fields' names as bytes, in `fields`' order.
    private static let fieldBytes: [[UInt8]] = fields.map { Array($0.utf8) }

    /// `slot(of:)` of a name given as bytes.
    static func slot(of name: UnsafeBufferPointer<UInt8>) -> Int? {
        fieldBytes.firstIndex { $0.count == name.count && $0.elementsEqual(name) }
    }
}
