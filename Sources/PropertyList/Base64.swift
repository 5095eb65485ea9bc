/// Base64 (RFC 4648, standard alphabet) as plists use it inside `<data>`.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Why a `<data>` body is not valid base64.
    public enum DecodeError: Error, Equatable, Sendable {
        /// A byte that is neither base64 nor whitespace, at its offset.
        case invalidCharacter(UInt8, offset: Int)
        /// The characters do not make whole groups of four.
        case badLength
        /// `=` anywhere but at the end.
        case misplacedPadding
    }

    /// Decodes base64, ignoring ASCII whitespace anywhere; padding is required and only at the end.
    public static func decode(_ input: some Collection<UInt8>) -> Result<[UInt8], DecodeError> {
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var quad: UInt32 = 0
        var count = 0
        var padding = 0
        var finished = false
        var offset = -1
        for byte in input {
            offset += 1
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C { continue }
            // Padding closes the data: nothing but whitespace may follow a padded group.
            guard !finished else { return .failure(.misplacedPadding) }
            if byte == 0x3D {
                padding += 1
                quad <<= 6
            } else {
                let value = decodeTable[Int(byte)]
                guard value != 0xFF else { return .failure(.invalidCharacter(byte, offset: offset)) }
                guard padding == 0 else { return .failure(.misplacedPadding) }
                quad = quad << 6 | UInt32(value)
            }
            count += 1
            guard count == 4 else { continue }
            guard padding <= 2 else { return .failure(.misplacedPadding) }
            output.append(UInt8(quad >> 16 & 0xFF))
            if padding < 2 { output.append(UInt8(quad >> 8 & 0xFF)) }
            if padding < 1 { output.append(UInt8(quad & 0xFF)) }
            finished = padding > 0
            quad = 0
            count = 0
        }
        guard count == 0 else { return .failure(.badLength) }
        return .success(output)
    }

    /// Encodes `bytes` on one line.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(alphabet[Int(chunk >> 6 & 63)])
            out.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let chunk = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(rest == 2 ? alphabet[Int(chunk >> 6 & 63)] : 0x3D)
            out.append(0x3D)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
