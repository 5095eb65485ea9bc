import Testing

@testable import ConfigSchema

/// The linear-time matcher agrees with Swift's `Regex` on whole matches, and stays fast where backtracking
/// explodes.
struct LinearRegexTests {
    /// Patterns from the corpus manifests and specfiles, plus constructs picked to stress the engine.
    static let patterns = [
        "^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$", "^(E|T)[A-Z0-9]{8,50}$", "^([0-9A-Fa-f]{2}){1,32}$",
        "^([0-9A-Fa-f]{2}:){5}([0-9A-Fa-f]{2})$", "^([0-9A-Za-z]{6})|([0-9A-Za-z]{9})$", "^(https://|mailto:).*$",
        "^(https?|file)://.*", "^.*\\.(icns|jpg|png)", "^.*\\.[png|svg]", "^.{12,}$", "^/|//|(/[\\w-]+)+$",
        "^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$",
        "^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$", "^[^\\.][\\d.]+[^\\.]$", "^\\d{4}-\\d{4}$", "^https?://.*.pac$",
        "(^(https?|file)://.*|<all_urls>)", "https?://.*", "(a|ab)(c|bcd)(d*)", "[^abc]+x?", "a{2,4}b{0,}",
        "\\d+\\.\\d+", "(?i)ab[c-e]", "[\\w.-]+@[\\w-]+\\.\\w+", "\\u00e9+", "(a+)+$", "(a*)*b", "(a|a)*", "a??b*?",
        "[a-]", "x{0}y", "(?:ab|cd){2}", "[\\s\\S]", "\\W\\D", "a|", "", ".\\..",
    ]

    static let alphabet: [String] = [
        "a", "b", "c", "d", "e", "x", "y", "A", "B", "E", "0", "1", "2", "9", ".", "-",
        "/", ":", "@", "_", " ", "\n", "é", "\u{301}", "h", "t", "p", "s", "]", "<", ">", "g", "n",
    ]

    @Test(arguments: patterns)
    func agreesWithSwiftRegex(_ source: String) throws {
        let linear = try #require(LinearRegex(source), "not in the linear subset: \(source)")
        let regex = try Regex(source).matchingSemantics(.unicodeScalar)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D &+ UInt64(source.utf8.count)
        for _ in 0..<3_000 {
            var text = ""
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let length = Int(state % 14)
            for step in 0..<length {
                text += Self.alphabet[Int((state >> UInt64(step * 4 % 56)) % UInt64(Self.alphabet.count))]
                state = state &* 6_364_136_223_846_793_005 &+ 1
            }
            // ICU's \w includes combining marks and Swift's does not; the engine follows ICU (checked below).
            if source.lowercased().contains("\\w") && text.unicodeScalars.contains(where: { $0.value == 0x301 }) {
                continue
            }
            let expected = try regex.wholeMatch(in: text) != nil
            #expect(linear.wholeMatch(text) == expected, "\(source) on \(text.debugDescription)")
        }
    }

    @Test func corpusStyleMatches() throws {
        let time = try #require(LinearRegex("^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$"))
        #expect(time.wholeMatch("23:59"))
        #expect(time.wholeMatch("24:00"))
        #expect(!time.wholeMatch("24:01"))
        let mac = try #require(LinearRegex("^([0-9A-Fa-f]{2}:){5}([0-9A-Fa-f]{2})$"))
        #expect(mac.wholeMatch("00:1A:2b:3C:4d:5E"))
        #expect(!mac.wholeMatch("00:1A:2b:3C:4d"))
    }

    /// Code-point semantics as in ICU / NSRegularExpression: `.` is one scalar, `\w` includes marks.
    @Test func icuSemantics() throws {
        let dot = try #require(LinearRegex("^.{2}$"))
        #expect(dot.wholeMatch("E\u{301}"))
        #expect(!dot.wholeMatch("\u{C9}"))
        #expect(try #require(LinearRegex("\\w+")).wholeMatch("E\u{301}\u{2164}_"))
        #expect(!(try #require(LinearRegex("a.b")).wholeMatch("a\nb")))
    }

    @Test func pathologicalPatternsAreLinear() throws {
        let pattern = try Pattern("^(a+)+$")
        #expect(pattern.isLinear)
        #expect(!pattern.matches(String(repeating: "a", count: 5_000) + "b"))
        #expect(pattern.matches(String(repeating: "a", count: 5_000)))
        let nested = try Pattern("((a*)*|b)*c")
        #expect(!nested.matches(String(repeating: "ab", count: 5_000)))
    }

    @Test(arguments: ["(?=a)b", "(?!x).", "(a)\\1", "a++", "[[a]]", "(?<n>a)", "\\p{L}", "a{1001}", "\\bword"])
    func unsupportedConstructsFallBack(_ source: String) {
        #expect(LinearRegex(source) == nil)
    }
}
