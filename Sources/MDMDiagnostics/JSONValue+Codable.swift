/// A JSON value read and written through `Codable`, for documents that carry one opaquely (a decision document
/// inside a check-in answer). Object members decode in key order: a decoder does not keep the text's order.
extension JSONValue: Codable {
    private struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The value a decoder holds: an object, an array, `null`, a boolean, a number or a string.
    public init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: MemberKey.self) {
            let keys = object.allKeys.sorted { $0.stringValue.utf8Precedes($1.stringValue) }
            self = .object(try keys.map { ($0.stringValue, try object.decode(JSONValue.self, forKey: $0)) })
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd { items.append(try array.decode(JSONValue.self)) }
            self = .array(items)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let flag = try? single.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? single.decode(Int64.self) {
            self = .integer(integer)
        } else if let real = try? single.decode(Double.self), real.isFinite {
            self = .number(String(real))
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    /// Writes the value; a number whose text is neither an integer nor a finite double cannot be written.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let flag):
            var single = encoder.singleValueContainer()
            try single.encode(flag)
        case .number(let text):
            var single = encoder.singleValueContainer()
            if let integer = Int64(text) {
                try single.encode(integer)
            } else if let real = Double(text), real.isFinite {
                try single.encode(real)
            } else {
                throw EncodingError.invalidValue(
                    self, .init(codingPath: encoder.codingPath, debugDescription: "'\(text)' is not a JSON number"))
            }
        case .string(let text):
            var single = encoder.singleValueContainer()
            try single.encode(text)
        case .array(let items):
            var array = encoder.unkeyedContainer()
            for item in items { try array.encode(item) }
        case .object(let members):
            var object = encoder.container(keyedBy: MemberKey.self)
            for (key, value) in members { try object.encode(value, forKey: MemberKey(stringValue: key)) }
        }
    }
}
