import Testing

@testable import DevicePolicy

struct URLTests {
    struct HostCase: Sendable, CustomStringConvertible {
        let input: String
        let expected: String?
        var description: String { input }
    }

    @Test(arguments: [
        HostCase(input: "Example.COM", expected: "example.com"),
        HostCase(input: "example.com.", expected: "example.com"),
        HostCase(input: "example.com..", expected: nil),
        HostCase(input: ".example.com", expected: nil),
        HostCase(input: "a..b", expected: nil),
        HostCase(input: "faß.de", expected: "xn--fa-hia.de"),
        HostCase(input: "BÜCHER.de", expected: "xn--bcher-kva.de"),
        HostCase(input: "XN--BCHER-KVA.de", expected: "xn--bcher-kva.de"),
        HostCase(input: "xn--zz-invalid.de", expected: nil),
        HostCase(input: "ｅｘａｍｐｌｅ.com", expected: "example.com"),
        HostCase(input: "a。b.com", expected: "a.b.com"),
        HostCase(input: "_dmarc.example.com", expected: "_dmarc.example.com"),
        HostCase(input: "a--b.example", expected: "a--b.example"),
        HostCase(input: "ex%41mple.com", expected: "example.com"),
        HostCase(input: "%zz.com", expected: nil),
        HostCase(input: "exa mple.com", expected: nil),
        HostCase(input: "exa%20mple.com", expected: nil),
        HostCase(input: "a|b.com", expected: nil),
        HostCase(input: "%ff.com", expected: nil),
        HostCase(input: "0x7f.1", expected: "127.0.0.1"),
        HostCase(input: "2130706433", expected: "127.0.0.1"),
        HostCase(input: "0177.0.0.1", expected: "127.0.0.1"),
        HostCase(input: "127.1", expected: "127.0.0.1"),
        HostCase(input: "1.2.3.256", expected: nil),
        HostCase(input: "256.1.1.1", expected: nil),
        HostCase(input: "1.2.3.4.5", expected: nil),
        HostCase(input: "4294967296", expected: nil),
        HostCase(input: "09.1.1.1", expected: nil),
        HostCase(input: "example.1", expected: nil),
        HostCase(input: "[2001:0db8:0:0:0:0:0:1]", expected: "[2001:db8::1]"),
        HostCase(input: "[::ffff:192.168.0.1]", expected: "[::ffff:c0a8:1]"),
        HostCase(input: "[1:0:0:2:0:0:0:3]", expected: "[1:0:0:2::3]"),
        HostCase(input: "[0:0:1:0:0:1:0:0]", expected: "[::1:0:0:1:0:0]"),
        HostCase(input: "[1:2:3:4:5:6:7:8]", expected: "[1:2:3:4:5:6:7:8]"),
        HostCase(input: "[::]", expected: "[::]"),
        HostCase(input: "[1::2::3]", expected: nil),
        HostCase(input: "[1:2:3:4:5:6:7:8:9]", expected: nil),
        HostCase(input: "[::1.2.3.04]", expected: nil),
        HostCase(input: "[12345::]", expected: nil),
    ])
    func hostNormalisation(_ testCase: HostCase) {
        #expect(URLHost(Substring(testCase.input))?.description == testCase.expected)
    }

    struct QueryCase: Sendable, CustomStringConvertible {
        let input: String
        /// The normalised URL, or the error code.
        let expected: String
        var description: String { input }
    }

    @Test(arguments: [
        QueryCase(input: "https://www.example.com/x", expected: "https://www.example.com/x"),
        QueryCase(input: "HTTPS://WWW.Example.COM:443/a/./b/../c", expected: "https://www.example.com/a/c"),
        QueryCase(input: "http://example.com:8080", expected: "http://example.com:8080/"),
        QueryCase(input: "http://example.com:80/", expected: "http://example.com/"),
        QueryCase(input: "http://example.com:/", expected: "http://example.com/"),
        QueryCase(input: "https://user:pass@example.com/", expected: "https://example.com/"),
        QueryCase(input: "https://example.com@evil.example/", expected: "https://evil.example/"),
        QueryCase(input: "https://a@b@evil.example/", expected: "https://evil.example/"),
        QueryCase(input: "https:\\\\example.com\\a\\b", expected: "https://example.com/a/b"),
        QueryCase(input: "https:example.com/a", expected: "https://example.com/a"),
        QueryCase(input: "https://example.com/x/%2e%2e/admin", expected: "https://example.com/admin"),
        QueryCase(input: "https://example.com/x/.%2E/admin", expected: "https://example.com/admin"),
        QueryCase(input: "https://example.com/x/%2e/y", expected: "https://example.com/x/y"),
        QueryCase(input: "https://example.com/a/..", expected: "https://example.com/"),
        QueryCase(input: "https://example.com/a/.", expected: "https://example.com/a/"),
        QueryCase(input: "https://example.com/../../etc", expected: "https://example.com/etc"),
        QueryCase(input: "https://example.com/ä{x}", expected: "https://example.com/%C3%A4%7Bx%7D"),
        QueryCase(input: "https://example.com/%41", expected: "https://example.com/%41"),
        QueryCase(input: "https://example.com/a?b#c", expected: "https://example.com/a"),
        QueryCase(input: "https://example.com.?q", expected: "https://example.com/"),
        QueryCase(input: "https://0x7f.1/", expected: "https://127.0.0.1/"),
        QueryCase(input: "http://[::1]:8080/", expected: "http://[::1]:8080/"),
        QueryCase(input: "https://bücher.de/", expected: "https://xn--bcher-kva.de/"),
        QueryCase(input: "", expected: "MC5102"),
        QueryCase(input: "https://example.com/a b", expected: "MC5102"),
        QueryCase(input: " https://example.com/", expected: "MC5102"),
        QueryCase(input: "https://example.com/\u{7}", expected: "MC5102"),
        QueryCase(input: "https://example.com/\u{A0}", expected: "MC5102"),
        QueryCase(input: "example.com", expected: "MC5102"),
        QueryCase(input: "1https://example.com", expected: "MC5102"),
        QueryCase(input: "https://", expected: "MC5102"),
        QueryCase(input: "https://user@/", expected: "MC5102"),
        QueryCase(input: "https://example.com:99999/", expected: "MC5102"),
        QueryCase(input: "https://example.com:8x/", expected: "MC5102"),
        QueryCase(input: "https://exa%00mple.com/", expected: "MC5102"),
        QueryCase(input: "ftp://example.com/", expected: "MC5103"),
        QueryCase(input: "javascript:alert(1)", expected: "MC5103"),
        QueryCase(input: "file:///etc/passwd", expected: "MC5103"),
    ])
    func queryURLs(_ testCase: QueryCase) {
        do {
            let url = try QueryURL(parsing: testCase.input)
            #expect(url.normalized == testCase.expected)
        } catch {
            #expect(error.diagnostic.code.code == testCase.expected, "\(error)")
        }
    }

    struct MatchCase: Sendable, CustomStringConvertible {
        let pattern: String
        let url: String
        let matches: Bool
        var description: String { "\(pattern) ~ \(url)" }
    }

    @Test(arguments: [
        MatchCase(pattern: "example.com", url: "https://example.com/", matches: true),
        MatchCase(pattern: "example.com", url: "http://www.example.com/x", matches: true),
        MatchCase(pattern: "example.com", url: "https://notexample.com/", matches: false),
        MatchCase(pattern: "example.com", url: "https://example.com.evil.net/", matches: false),
        MatchCase(pattern: "Example.COM.", url: "https://EXAMPLE.com./", matches: true),
        MatchCase(pattern: ".example.com", url: "https://example.com/", matches: true),
        MatchCase(pattern: ".example.com", url: "https://www.example.com/", matches: false),
        MatchCase(pattern: "*.example.com", url: "https://example.com/", matches: false),
        MatchCase(pattern: "*.example.com", url: "https://a.b.example.com/", matches: true),
        MatchCase(pattern: "*", url: "https://anything.example/", matches: true),
        MatchCase(pattern: "*", url: "http://10.0.0.1/", matches: true),
        MatchCase(pattern: "https://example.com", url: "http://example.com/", matches: false),
        MatchCase(pattern: "HTTP://example.com", url: "http://example.com/", matches: true),
        MatchCase(pattern: "example.com:8443", url: "https://example.com:8443/", matches: true),
        MatchCase(pattern: "example.com:443", url: "https://example.com/", matches: true),
        MatchCase(pattern: "example.com:443", url: "http://example.com/", matches: false),
        MatchCase(pattern: "example.com/a", url: "https://example.com/apple", matches: true),
        MatchCase(pattern: "example.com/a/", url: "https://example.com/apple", matches: false),
        MatchCase(pattern: "example.com/A", url: "https://example.com/a", matches: false),
        MatchCase(pattern: "example.com/x/../admin", url: "https://example.com/admin/users", matches: true),
        MatchCase(pattern: "example.com/admin", url: "https://example.com/x/%2e%2e/admin", matches: true),
        MatchCase(pattern: "127.0.0.1", url: "http://0x7f.1/", matches: true),
        MatchCase(pattern: "127.0.0.1", url: "http://2130706433/", matches: true),
        MatchCase(pattern: "127.0.0.1", url: "http://localhost/", matches: false),
        MatchCase(pattern: "0.1", url: "http://0.0.0.1/", matches: true),
        MatchCase(pattern: "example.com", url: "http://93.184.216.34/", matches: false),
        MatchCase(pattern: "[::1]", url: "http://[0:0:0:0:0:0:0:1]/", matches: true),
        MatchCase(pattern: "faß.de", url: "https://xn--fa-hia.de/", matches: true),
        MatchCase(pattern: "xn--fa-hia.de", url: "https://FASS.de/", matches: false),
        MatchCase(pattern: "example.com", url: "https://example.com@evil.net/", matches: false),
        MatchCase(pattern: "evil.net", url: "https://example.com@evil.net/", matches: true),
    ])
    func patternMatching(_ testCase: MatchCase) throws {
        let pattern = try URLPattern(parsing: testCase.pattern)
        let url = try QueryURL(parsing: testCase.url)
        #expect(pattern.matches(url) == testCase.matches)
        // The host index agrees with the linear match.
        var filter = WebFilter()
        filter.denyList = ListSetting(
            key: "DenyListURLs", position: .unknown,
            entries: [Setting(value: pattern, key: "DenyListURLs", index: 0, written: .null, position: .unknown)])
        let indexed = FilterIndex(filter).deny.candidates(for: url.host).contains(0) && pattern.matches(url)
        #expect(indexed == testCase.matches)
    }

    @Test(arguments: [
        "", " example.com", "example .com", "example.com?x", "example.com#x", "user@example.com", "example.com\\a",
        "ftp://example.com", "exa*mple.com", "**.example.com", "example.*", ".127.0.0.1", "*.[::1]", "example.com..",
        "example..com", "example.com:", "example.com:0", "example.com:70000", "example.com:8x", "*.", ".", "://x",
        "https://", "1.2.3.256", "exa\u{7}mple.com",
    ])
    func invalidPatterns(_ text: String) {
        #expect(throws: URLPatternError.self) { try URLPattern(parsing: text) }
    }

    @Test func ssidsAreBytes() throws {
        #expect(SSID(text: String(repeating: "a", count: 32)) != nil)
        #expect(SSID(text: String(repeating: "a", count: 33)) == nil)
        #expect(SSID(text: "") == nil)
        #expect(SSID(text: String(repeating: "é", count: 16)) != nil)
        #expect(SSID(text: String(repeating: "é", count: 17)) == nil)
        let nfc = try #require(SSID(text: "Caf\u{E9}"))
        let nfd = try #require(SSID(text: "Cafe\u{301}"))
        #expect("Caf\u{E9}" == "Cafe\u{301}")  // Swift equates them; SSIDs must not
        #expect(nfc != nfd)
        #expect(SSID(text: "acme") != SSID(text: "ACME"))
        #expect(SSID(text: "acme ") != SSID(text: "acme"))
        #expect(SSID(hex: "41434D45") == SSID(text: "ACME"))
        #expect(SSID(hex: "41434d45") == SSID(text: "ACME"))
        #expect(SSID(hex: "4143 4D45") == nil)
        #expect(SSID(hex: "41:43") == nil)
        #expect(SSID(hex: "414") == nil)
        #expect(SSID(hex: "") == nil)
        #expect(SSID(hex: "zz") == nil)
        #expect(SSID(hex: String(repeating: "00", count: 33)) == nil)
        #expect(SSID(hex: "ff00")?.hex == "ff00")
    }
}
