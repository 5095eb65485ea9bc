import PropertyList

/// A small, seeded generator (SplitMix64), so random tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random plist values that reach the corners: XML-special and astral characters, int64 extremes,
/// nan and infinities, dates across centuries, binary data, nesting.
enum RandomPlist {
    static let fragments: [String] = [
        "a", "Key", "&", "<", ">", "\"", "'", "]]>", "&amp;", "\t", "\n", "\r", "\r\n", " ", "é", "e\u{301}", "ß",
        "日本", "😀", "𝄞", "👩‍💻", "\u{FEFF}", "\u{200B}", "<!--", "-->", "%", "\\", "$EMAIL", "{{mail}}", "0x1F",
    ]

    static func pick<T>(_ items: [T], _ rng: inout SeededGenerator) -> T {
        items[Int.random(in: items.indices, using: &rng)]
    }

    static func string(_ rng: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...6, using: &rng)).map { _ in pick(fragments, &rng) }.joined()
    }

    static func value(_ rng: inout SeededGenerator, depth: Int = 0) -> PlistValue {
        let scalarKinds = 7
        let kind = Int.random(in: 0..<(depth < 4 ? scalarKinds + 2 : scalarKinds), using: &rng)
        switch kind {
        case 0: return .string(string(&rng))
        case 1:
            let specials: [Int64] = [0, 1, -1, .max, .min, .max - 1, .min + 1, 255, 256, 65_536, -4_294_967_296]
            return .integer(
                Bool.random(using: &rng)
                    ? pick(specials, &rng) : Int64.random(in: .min ... .max, using: &rng))
        case 2:
            let specials: [Double] = [
                0, -0.0, 1, -1.5, .nan, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
                .leastNormalMagnitude, 0.1, 1e-300, 123_456_789.125, 1e16, 2.5e-8,
            ]
            // Any finite Double: the mask keeps the exponent below the all-ones pattern of inf and nan.
            let finite = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF) * (Bool.random(using: &rng) ? 1 : -1)
            return .real(Bool.random(using: &rng) ? pick(specials, &rng) : finite)
        case 3: return .boolean(Bool.random(using: &rng))
        case 4:
            // 1900-01-01 ... 2100-01-01, whole seconds, as XML plists carry them.
            return .date(
                PlistDate(secondsSince1970: Double(Int64.random(in: -2_208_988_800...4_102_444_800, using: &rng))))
        case 5:
            return .data((0..<Int.random(in: 0...80, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        case 6: return .string(String(repeating: "x", count: Int.random(in: 0...3, using: &rng)))
        case 7:
            return .array(
                (0..<Int.random(in: 0...5, using: &rng)).map { _ in PlistNode(value(&rng, depth: depth + 1)) })
        default:
            var entries: [PlistDictionary.Entry] = []
            var seen: Set<String> = []
            for _ in 0..<Int.random(in: 0...5, using: &rng) {
                let key = string(&rng)
                guard seen.insert(key).inserted else { continue }
                entries.append(.init(key: key, value: PlistNode(value(&rng, depth: depth + 1))))
            }
            return .dictionary(PlistDictionary(entries))
        }
    }
}
