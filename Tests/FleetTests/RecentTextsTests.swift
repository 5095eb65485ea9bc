import Testing

@testable import FleetStoreSQLite

/// Texts a column repeats are shared between rows (`RecentTexts`), and every text read is the text decoded from its
/// bytes, whether it was found among the recent ones or not.
struct RecentTextsTests {
    /// Rows of two columns: an app id that repeats among three, and an id that never does.
    static func rows(_ count: Int) -> [[[UInt8]]] {
        let apps = ["com.example.field", "com.example.fieldnotes", "com.example.fieldsync"]
        return (0..<count).map { index in
            [Array(apps[index % 3].utf8), Array("F1C9A3E2-7B4D-4C21-9E0A-\(100_000_000_000 + index)".utf8)]
        }
    }

    /// Texts that look alike to a shortcut: the same length and bytes but one, a small string, bytes that are not
    /// UTF-8 (decoded with replacement characters), and the same bytes again after them.
    static let tricky: [[UInt8]] = [
        Array("com.example.fieldA".utf8), Array("com.example.fieldB".utf8), Array("short".utf8),
        [0x63, 0x6F, 0x6D, 0x2E, 0xFF, 0xFE, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65, 0x2E, 0x66, 0x69, 0x65],
        [0x63, 0x6F, 0x6D, 0x2E, 0xFF, 0xFE, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65, 0x2E, 0x66, 0x69, 0x65],
        Array("com.example.fieldA".utf8), Array("com.example.fieldB".utf8), Array("com.example.fieldC".utf8),
        Array("com.example.fieldD".utf8), Array("com.example.fieldE".utf8), Array("com.example.fieldA".utf8),
    ]

    @Test func everyTextIsItsBytesDecoded() {
        var recent = RecentTexts(columns: 2)
        for (index, row) in Self.rows(500).enumerated() {
            for (column, bytes) in row.enumerated() {
                let text = bytes.withUnsafeBufferPointer { recent.text($0, column: column) }
                #expect(text == String(decoding: bytes, as: UTF8.self), "row \(index), column \(column)")
            }
        }
        var other = RecentTexts(columns: 1)
        for (index, bytes) in Self.tricky.enumerated() {
            let text = bytes.withUnsafeBufferPointer { other.text($0, column: 0) }
            #expect(text == String(decoding: bytes, as: UTF8.self), "text \(index)")
        }
    }

    /// A column beyond those the texts were made for is decoded as it is.
    @Test func aColumnOutsideTheTableIsDecoded() {
        var recent = RecentTexts(columns: 1)
        let bytes = Array("com.example.fieldnotes".utf8)
        #expect(bytes.withUnsafeBufferPointer { recent.text($0, column: 3) } == "com.example.fieldnotes")
    }
}
