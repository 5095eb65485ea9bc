import Foundation
import MDMDiagnostics
import PropertyList
import Testing

/// Builds `bplist00` bytes from encoded objects, so tests can make valid and damaged files alike.
struct BinaryPlistBytes {
    var objects: [[UInt8]]
    var top = 0
    var objectCount: UInt64? = nil
    var tableOffsetShift = 0
    var offsetOverride: [Int: UInt8] = [:]

    static func int8(_ value: UInt8) -> [UInt8] { [0x10, value] }
    static func int64(_ value: Int64) -> [UInt8] { [0x13] + bigEndian(UInt64(bitPattern: value), 8) }
    static func ascii(_ text: String) -> [UInt8] { [0x50 | UInt8(text.utf8.count)] + Array(text.utf8) }
    static func utf16(_ units: [UInt16]) -> [UInt8] {
        [0x60 | UInt8(units.count)] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
    static func real(_ value: Double) -> [UInt8] { [0x23] + bigEndian(value.bitPattern, 8) }
    static func array(_ refs: [UInt8]) -> [UInt8] { [0xA0 | UInt8(refs.count)] + refs }
    static func dict(_ keys: [UInt8], _ values: [UInt8]) -> [UInt8] { [0xD0 | UInt8(keys.count)] + keys + values }

    static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }

    var bytes: [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for (index, object) in objects.enumerated() {
            offsets.append(offsetOverride[index] ?? UInt8(out.count))
            out += object
        }
        let tableOffset = out.count + tableOffsetShift
        out += offsets
        out += [0, 0, 0, 0, 0, 0, 1, 1]
        out += Self.bigEndian(objectCount ?? UInt64(objects.count), 8)
        out += Self.bigEndian(UInt64(top), 8)
        out += Self.bigEndian(UInt64(tableOffset), 8)
        return out
    }
}

struct BinaryReaderTests {
    typealias B = BinaryPlistBytes

    @Test func readsEveryType() throws {
        // 0: root dict; keys 1...8, values 9...16
        let keys = ["s", "i", "n", "r", "f", "d", "b", "a"]
        var objects: [[UInt8]] = [B.dict(Array(1...8), Array(9...16))]
        objects += keys.map(B.ascii)
        objects += [
            B.utf16([0x0063, 0x0061, 0x0066, 0x00E9, 0xD834, 0xDD1E]),  // "café𝄞"
            [0x11, 0x01, 0x00],  // 256, two bytes
            B.int64(-5),
            B.real(2.5),
            [0x22] + B.bigEndian(UInt64(Float(1.5).bitPattern), 4),
            [0x33] + B.bigEndian(Double(86_400).bitPattern, 8),
            [0x09],
            B.array([17, 18]),
            [0x43, 0x01, 0x02, 0x03],
            [0x08],
        ]
        let document = PropertyListReader().read(B(objects: objects).bytes, file: "all.bplist")
        #expect(document.diagnostics.isEmpty, "\(document.diagnostics.map(\.message))")
        #expect(document.shape == .binary)
        let expected: PlistValue = [
            "s": "café𝄞", "i": 256, "n": -5, "r": 2.5, "f": 1.5,
            "d": .date(PlistDate(secondsSince1970: 978_307_200 + 86_400)), "b": true,
            "a": [.data([1, 2, 3]), false],
        ]
        #expect(document.root?.value == expected)
        #expect(document.root?.position.offset == 8)
    }

    @Test func sharedObjectsAreExpanded() throws {
        let document = PropertyListReader().read(
            B(objects: [B.array([1, 1, 1]), B.ascii("x")]).bytes, file: "shared.bplist")
        #expect(document.root?.value == ["x", "x", "x"])
    }

    struct DamagedCase: CustomTestStringConvertible, Sendable {
        let name: String
        let file: BinaryPlistBytes
        let code: DiagnosticCode
        var keyPath: String? = nil
        var testDescription: String { name }
    }

    static let damaged: [DamagedCase] = [
        DamagedCase(
            name: "array that contains itself", file: B(objects: [B.array([0])]), code: PlistCode.binaryCycle,
            keyPath: "[0]"),
        DamagedCase(
            name: "cycle two levels down", file: B(objects: [B.dict([1], [2]), B.ascii("k"), B.array([0])]),
            code: PlistCode.binaryCycle, keyPath: "k[0]"),
        DamagedCase(name: "top object out of range", file: B(objects: [[0x09]], top: 3), code: PlistCode.invalidBinary),
        DamagedCase(
            name: "reference out of range", file: B(objects: [B.array([7])]), code: PlistCode.invalidBinary,
            keyPath: "[0]"),
        DamagedCase(
            name: "object offset outside the object area", file: B(objects: [[0x09]], offsetOverride: [0: 250]),
            code: PlistCode.invalidBinary),
        DamagedCase(
            name: "offset table past the end", file: B(objects: [[0x09]], tableOffsetShift: 500),
            code: PlistCode.invalidBinary),
        DamagedCase(
            name: "more objects than the table holds", file: B(objects: [[0x09]], objectCount: 1 << 40),
            code: PlistCode.invalidBinary),
        DamagedCase(
            name: "overlong array count", file: B(objects: [[0xAF, 0x13] + B.bigEndian(1 << 60, 8)]),
            code: PlistCode.invalidBinary),
        DamagedCase(
            name: "string longer than the file", file: B(objects: [[0x5F, 0x10, 0xFF, 0x41]]),
            code: PlistCode.invalidBinary),
        DamagedCase(
            name: "dictionary key that is not a string", file: B(objects: [B.dict([1], [1]), B.int8(3)]),
            code: PlistCode.invalidBinary),
        DamagedCase(
            name: "unpaired surrogate",
            file: B(objects: [B.dict([1], [2]), B.ascii("name"), B.utf16([0xD800, 0x0041])]),
            code: PlistCode.invalidBinary, keyPath: "name"),
        DamagedCase(
            name: "null object", file: B(objects: [B.array([1]), [0x00]]), code: PlistCode.unsupportedBinaryObject,
            keyPath: "[0]"),
        DamagedCase(name: "UID object", file: B(objects: [[0x80, 0x01]]), code: PlistCode.unsupportedBinaryObject),
        DamagedCase(
            name: "128-bit integer over Int64", file: B(objects: [[0x14] + B.bigEndian(1, 8) + B.bigEndian(0, 8)]),
            code: PlistCode.integerOverflow),
        DamagedCase(
            name: "non-ASCII byte in an ASCII string", file: B(objects: [[0x51, 0xE9]]), code: PlistCode.invalidBinary),
        // A key twice (found by the fuzz target's write-and-read-back property: XML refuses it when read back).
        DamagedCase(
            name: "duplicate key", file: B(objects: [B.dict([1, 1], [2, 3]), B.ascii("name"), B.ascii("a"), B.ascii("b")]),
            code: PlistCode.duplicateKey, keyPath: "name"),
        // Dates no writer can express (CPython's invalid binary plists, and the edges of years 1 to 9999).
        DamagedCase(name: "date of NaN seconds", file: B(objects: [[0x33, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0]]), code: PlistCode.invalidBinary),
        DamagedCase(name: "date of infinite seconds", file: B(objects: [[0x33, 0x7F, 0xF0, 0, 0, 0, 0, 0, 0]]), code: PlistCode.invalidBinary),
        DamagedCase(name: "date of minus infinity", file: B(objects: [[0x33, 0xFF, 0xF0, 0, 0, 0, 0, 0, 0]]), code: PlistCode.invalidBinary),
        DamagedCase(name: "date in 4.5 million years", file: B(objects: [[0x33, 0x42, 0xE0, 0, 0, 0, 0, 0, 0]]), code: PlistCode.invalidBinary),
        DamagedCase(name: "date of 1e300 seconds", file: B(objects: [[0x33] + B.bigEndian(1e300.bitPattern, 8)]), code: PlistCode.invalidBinary),
        DamagedCase(name: "date in 10000", file: B(objects: [[0x33] + B.bigEndian((PlistDate.pastLatest - PlistDate.referenceDateOffset).bitPattern, 8)]), code: PlistCode.invalidBinary),
        DamagedCase(name: "date before year 1", file: B(objects: [[0x33] + B.bigEndian((PlistDate.earliest - PlistDate.referenceDateOffset - 1).bitPattern, 8)]), code: PlistCode.invalidBinary),
    ]

    /// The first and last instants a date holds, and a date with a fraction of a second (found by the fuzz
    /// target's write-and-read-back property: XML holds whole seconds), are read as whole seconds and written back
    /// as XML and read equal.
    @Test(arguments: [PlistDate.earliest, PlistDate.pastLatest - 0.5, 0, 1_639_955_587.75])
    func datesAtTheEdgesRoundTrip(_ seconds: Double) throws {
        let file = B(objects: [[0x33] + B.bigEndian((seconds - PlistDate.referenceDateOffset).bitPattern, 8)])
        let document = PropertyListReader().read(file.bytes, file: "edge.bplist")
        #expect(document.diagnostics.isEmpty, "\(document.diagnostics.map(\.message))")
        let root = try #require(document.root)
        guard case .date(let date) = root.value else {
            Issue.record("not a date: \(root.value)")
            return
        }
        let xml = try PlistWriter.xml(root.value)
        let expected =
            seconds < 0
            ? "0001-01-01T00:00:00Z" : seconds == 0 ? "1970-01-01T00:00:00Z" : seconds < 1e10 ? "2021-12-19T23:13:07Z" : "9999-12-31T23:59:59Z"
        #expect(xml.contains("<date>\(expected)</date>"), "\(xml)")
        #expect(date.secondsSince1970 == seconds.rounded(.down))
        let reread = PropertyListReader().read(Array(xml.utf8), file: "edge.plist")
        guard case .date(let back)? = reread.root?.value else {
            Issue.record("\(xml) did not read back as a date: \(reread.diagnostics.map(\.message))")
            return
        }
        #expect(back == date)
    }

    /// A date made in code outside the range is written as the nearest end, never a trap.
    @Test func writingAnyDoubleNeverTraps() {
        for seconds in [Double.nan, .infinity, -.infinity, 1e300, -1e300] {
            let text = PlistDate(secondsSince1970: seconds).iso8601
            #expect(PlistDate(iso8601: text) != nil, "\(seconds) → \(text)")
        }
    }

    @Test(arguments: damaged)
    func damagedFileIsOneClearError(_ testCase: DamagedCase) {
        let document = PropertyListReader().read(testCase.file.bytes, file: "damaged.bplist")
        #expect(document.diagnostics.map(\.code) == [testCase.code], "\(document.diagnostics.map(\.message))")
        #expect(document.diagnostics.first?.keyPath == testCase.keyPath)
        #expect(document.diagnostics.first?.location?.position.offset != nil)
        #expect(document.root == nil)
    }

    @Test func truncatedFilesAreErrors() {
        let good = B(objects: [B.array([1, 2]), B.ascii("a"), B.ascii("b")]).bytes
        for length in 0..<good.count where length >= 8 {
            let document = PropertyListReader().read(Array(good[0..<length]), file: "cut.bplist")
            #expect(document.hasErrors, "length \(length)")
        }
    }

    @Test func sharedObjectExplosionHitsTheNodeLimit() {
        // Each array holds the next one twice: 2^40 values from 41 objects.
        var objects: [[UInt8]] = []
        for index in 0..<40 { objects.append(B.array([UInt8(index + 1), UInt8(index + 1)])) }
        objects.append([0x09])
        let document = PropertyListReader().read(B(objects: objects).bytes, file: "explode.bplist")
        #expect(document.diagnostics.map(\.code) == [PlistCode.tooManyNodes])
        #expect(document.root == nil)
    }
}
