/// A request head read in place from the connection's bytes, as far as `WireFastPath` takes them.
struct WireRequestHead {
    enum Method { case get, post }

    var method: Method
    var target: Substring
    var authorization: String?
    var accept: String?
    var ifNoneMatch: String?
    var close = false
    /// The body's length (`Content-Length`; 0 without one). The body follows the head.
    var contentLength = 0
    /// The bytes the head takes, up to and including its empty line.
    var length: Int

    /// The head at the start of `bytes`, or nil when it is incomplete or anything but the plainest `GET` of a
    /// `/v1/apps/…` target or `POST` of `/v1/update-check` (see `WireFastPath`).
    static func parse(_ bytes: UnsafeRawBufferPointer) -> WireRequestHead? {
        let space = UInt8(ascii: " "), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        let count = bytes.count
        let method: Method
        var index: Int
        if count > 16, bytes[0] == UInt8(ascii: "G"), bytes[1] == UInt8(ascii: "E"), bytes[2] == UInt8(ascii: "T"),
            bytes[3] == space
        {
            (method, index) = (.get, 4)
        } else if count > 17, bytes[0] == UInt8(ascii: "P"), bytes[1] == UInt8(ascii: "O"),
            bytes[2] == UInt8(ascii: "S"), bytes[3] == UInt8(ascii: "T"), bytes[4] == space
        {
            (method, index) = (.post, 5)
        } else {
            return nil
        }
        let targetStart = index
        while index < count, bytes[index] != space {
            let byte = bytes[index]
            guard byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "%") else { return nil }
            index += 1
        }
        let targetEnd = index
        let version = " HTTP/1.1\r\n".utf8
        guard targetEnd - targetStart > 9, count - index >= version.count else { return nil }
        for expected in version {
            guard bytes[index] == expected else { return nil }
            index += 1
        }
        // Compared as bytes: `Substring.hasPrefix` compares characters, at about 500 instructions each.
        let prefix: StaticString = method == .get ? "/v1/apps/" : "/v1/"
        guard
            prefix.equals(
                UnsafeRawBufferPointer(rebasing: bytes[targetStart..<(targetStart + prefix.utf8CodeUnitCount)]))
        else { return nil }
        let target = Substring(
            decoding: UnsafeRawBufferPointer(rebasing: bytes[targetStart..<targetEnd]), as: UTF8.self)
        var head = WireRequestHead(method: method, target: target, length: 0)
        var seen = Field.Seen()
        while true {
            // One header line: name, colon, value, CRLF. The empty line ends the head.
            guard index + 1 < count else { return nil }
            if bytes[index] == cr {
                guard bytes[index + 1] == lf else { return nil }
                head.length = index + 2
                return head
            }
            let nameStart = index
            while index < count, bytes[index] != UInt8(ascii: ":") {
                guard Field.isTokenByte(bytes[index]) else { return nil }
                index += 1
            }
            guard index < count, index > nameStart else { return nil }
            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<index])
            index += 1
            while index < count, bytes[index] == space || bytes[index] == UInt8(ascii: "\t") { index += 1 }
            let valueStart = index
            while index < count, bytes[index] != cr {
                let byte = bytes[index]
                guard (byte >= 0x20 && byte < 0x7F) || byte == UInt8(ascii: "\t") else { return nil }
                index += 1
            }
            guard index + 1 < count, bytes[index + 1] == lf else { return nil }
            var valueEnd = index
            while valueEnd > valueStart, bytes[valueEnd - 1] == space || bytes[valueEnd - 1] == UInt8(ascii: "\t") {
                valueEnd -= 1
            }
            index += 2
            let value = UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd])
            switch Field(name) {
            case .authorization?:
                guard seen.insert(.authorization) else { return nil }
                head.authorization = String(decoding: value, as: UTF8.self)
            case .accept?:
                guard seen.insert(.accept) else { return nil }
                head.accept = String(decoding: value, as: UTF8.self)
            case .ifNoneMatch?:
                guard seen.insert(.ifNoneMatch) else { return nil }
                head.ifNoneMatch = String(decoding: value, as: UTF8.self)
            case .connection?:
                guard seen.insert(.connection) else { return nil }
                if Field.equalsIgnoringCase(value, "close") {
                    head.close = true
                } else if !Field.equalsIgnoringCase(value, "keep-alive") {
                    return nil
                }
            case .contentLength?:
                // Digits only, and few enough that the length is a number and not an overflow.
                guard value.count > 0, value.count < 10, seen.insert(.contentLength) else { return nil }
                var length = 0
                for digit in value {
                    guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
                    length = length * 10 + Int(digit - UInt8(ascii: "0"))
                }
                guard method == .post || length == 0 else { return nil }
                head.contentLength = length
            case .refused?:
                return nil
            case nil:
                continue
            }
        }
    }

    /// True when the target is `literal`, compared as bytes.
    func isTarget(_ literal: StaticString) -> Bool {
        var target = target
        return target.withUTF8 { literal.equals(UnsafeRawBufferPointer($0)) }
    }

    /// The header names the fast path reads or refuses.
    private enum Field: UInt8 {
        case authorization = 1
        case accept = 2
        case ifNoneMatch = 4
        case connection = 8
        case contentLength = 16
        /// `Transfer-Encoding`, `Upgrade`, `Expect`: the decoder's to judge.
        case refused = 32

        struct Seen {
            private var bits: UInt8 = 0
            /// False when `field` was seen before.
            mutating func insert(_ field: Field) -> Bool {
                defer { bits |= field.rawValue }
                return bits & field.rawValue == 0
            }
        }

        init?(_ name: UnsafeRawBufferPointer) {
            switch name.count {
            case 13 where Field.equalsIgnoringCase(name, "authorization"): self = .authorization
            case 13 where Field.equalsIgnoringCase(name, "if-none-match"): self = .ifNoneMatch
            case 6 where Field.equalsIgnoringCase(name, "accept"): self = .accept
            case 6 where Field.equalsIgnoringCase(name, "expect"): self = .refused
            case 7 where Field.equalsIgnoringCase(name, "upgrade"): self = .refused
            case 10 where Field.equalsIgnoringCase(name, "connection"): self = .connection
            case 14 where Field.equalsIgnoringCase(name, "content-length"): self = .contentLength
            case 17 where Field.equalsIgnoringCase(name, "transfer-encoding"): self = .refused
            default: return nil
            }
        }

        /// ASCII case-insensitive equality with a lower-case `expected`.
        static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ expected: StaticString) -> Bool {
            guard bytes.count == expected.utf8CodeUnitCount else { return false }
            let lower = UnsafeRawBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount)
            for offset in 0..<bytes.count where bytes[offset] | 0x20 != lower[offset] {
                // `| 0x20` folds letters; `-` is 0x2D either way.
                return false
            }
            return true
        }

        /// RFC 9110 `tchar`.
        static func isTokenByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}

extension StaticString {
    /// True when `bytes` are the literal's UTF-8 bytes, compared one by one: bytes read from a connection compared
    /// with a `String.UTF8View`, a `Substring` or through `elementsEqual` of a slice cost many times more.
    func equals(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == utf8CodeUnitCount else { return false }
        for offset in 0..<bytes.count where bytes[offset] != utf8Start[offset] { return false }
        return true
    }
}
