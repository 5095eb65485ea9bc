import Testing

@testable import MDMDiagnostics

/// `utf8Precedes` gives the answers of comparing the two strings' UTF-8 byte by byte.
@Suite struct ByteOrderTests {
    @Test(arguments: [
        ("", "", false), ("", "a", true), ("a", "", false), ("a", "a", false), ("a", "b", true), ("b", "a", false),
        ("bench-0009", "bench-00010", false), ("bench-00009", "bench-00010", true), ("abc", "abcd", true),
        ("abcd", "abc", false), ("Z", "a", true), ("é", "f", false), ("e\u{301}", "é", true),
        ("a-much-longer-device-identifier-0001", "a-much-longer-device-identifier-0002", true),
    ])
    func examples(_ a: String, _ b: String, _ expected: Bool) {
        #expect(a.utf8Precedes(b) == expected)
        #expect(a.utf8Precedes(b) == a.utf8.lexicographicallyPrecedes(b.utf8))
    }

    @Test func agreesWithTheIteratorsOnRandomStrings() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "b", "-", "0", "9", "Z", "é", "ß", "🙂", " "]
        func random() -> String {
            String(
                (0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        for _ in 0..<5_000 {
            let (a, b) = (random(), random())
            #expect(a.utf8Precedes(b) == a.utf8.lexicographicallyPrecedes(b.utf8), "\(a) vs \(b)")
        }
    }
}
