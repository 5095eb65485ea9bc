import Testing

@testable import DevicePolicy

/// Random URLs and patterns built from the characters that make parsers go wrong: no input crashes, and a
/// normalised URL is a fixed point of normalisation.
struct URLPropertyTests {
    static let pieces = [
        "http", "https", "HTTPS", "ftp", ":", "//", "\\\\", "/", "\\", "@", "user", ":pass", "example", ".", "..",
        "com",
        "xn--", "xn--fa-hia", "faß", "ｅｘ", "。", "%2e", "%2E%2e", "%41", "%", "%zz", "%00", "0x7f", "1", "0", "255",
        "256", "4294967296", "[", "]", "::", "::1", "ffff", "1.2.3.4", "?", "#", "q=1", "*", "*.", " ", "\t", "é", "🙂",
        "a", "-", "_", "80", "443", "65535", "65536", ";", "{", "}", "`", "<", ">", "\"",
    ]

    /// A deterministic generator (xorshift), so a failure can be replayed.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
    }

    static func randomText(_ generator: inout Generator) -> String {
        var text = ""
        for _ in 0..<(1 + generator.next(12)) { text += pieces[generator.next(pieces.count)] }
        return text
    }

    @Test func normalisedURLsAreFixedPoints() throws {
        var generator = Generator(state: 0x9E37_79B9_7F4A_7C15)
        var parsed = 0
        for _ in 0..<20_000 {
            var text = Self.randomText(&generator)
            if generator.next(2) == 0 { text = (generator.next(2) == 0 ? "https://" : "http://") + text }
            guard let url = try? QueryURL(parsing: text) else { continue }
            parsed += 1
            let again = try QueryURL(parsing: url.normalized)
            #expect(again.normalized == url.normalized, "\(text)")
            #expect(again.host == url.host && again.path == url.path && again.effectivePort == url.effectivePort)
        }
        #expect(parsed > 1_000)
    }

    @Test func patternsNeverCrashAndIndexAgreesWithMatching() throws {
        var generator = Generator(state: 0xD1B5_4A32_D192_ED03)
        let urls = try [
            "https://example.com/a", "http://www.example.com:8080/x/y", "https://127.0.0.1/", "https://[::1]/",
            "https://xn--fa-hia.de/", "https://a.b.c.example.com/%41",
        ].map { try QueryURL(parsing: $0) }
        for _ in 0..<20_000 {
            let text = Self.randomText(&generator)
            guard let pattern = try? URLPattern(parsing: text) else { continue }
            var filter = WebFilter()
            filter.denyList = ListSetting(
                key: "DenyListURLs", position: .unknown,
                entries: [Setting(value: pattern, key: "DenyListURLs", index: 0, written: .null, position: .unknown)])
            let index = FilterIndex(filter)
            for url in urls {
                let indexed = index.deny.candidates(for: url.host).contains(0) && pattern.matches(url)
                #expect(indexed == pattern.matches(url), "\(text) ~ \(url.normalized)")
            }
        }
    }
}
