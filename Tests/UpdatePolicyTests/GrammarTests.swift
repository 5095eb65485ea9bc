import Testing
import UpdatePolicy

/// The grammars and total orders of *Update policies*
struct GrammarTests {
    @Test(arguments: [
        ("1.2", "1.2.0"), ("1.2", "v1.02"), ("1.2", "1.2.0.0+7"), ("1.2.0", "V1.2"), ("007.1", "7.1"),
        ("2.3.1", "2.3.1.0"), ("1.0.0-rc.1+build.5", "1.0.0-rc.1"), (" 3.0 ", "3.0"),
        ("\t1.2\r\n", "1.2"), ("1.0-b.2+x-y.7", "1.0-b.2"),
    ])
    func equalAppVersions(_ a: String, _ b: String) throws {
        #expect(try #require(AppVersion(a)) == #require(AppVersion(b)))
    }

    /// Each version is below the next.
    @Test func appVersionOrder() throws {
        let ordered = [
            "0.9", "1.0.0-0", "1.0.0-1", "1.0.0-2", "1.0.0-10", "1.0.0-A", "1.0.0-B", "1.0.0-a", "1.0.0-alpha",
            "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0",
            "1.0.0.1", "1.2", "1.9", "1.10", "2.0.0-RC.1", "2.0.0-alpha", "2.0", "9223372036854775807",
        ]
        let versions = try ordered.map { try #require(AppVersion($0), "\($0)") }
        for (lower, upper) in zip(versions, versions.dropFirst()) {
            #expect(lower < upper, "\(lower) < \(upper)")
            #expect(!(upper < lower))
        }
    }

    @Test(arguments: [
        "", " ", "1.", ".1", "1..2", "1.2.3.4.5", "1.a", "a.1", "1.2-", "1.2+", "1.2-beta..1", "1.2-01", "1.2-be_ta",
        "1.2+me ta", "9223372036854775808", "１.２", "1.٣", "-1", "+1", "vv1", "1.2 beta", "1.0.0-beta+", "v", "V-1",
        "1.2-beta.", "1.2+.x", "1.2-é", "\t", "1.2\u{0}",
    ])
    func invalidAppVersions(_ text: String) {
        #expect(AppVersion(text) == nil, "\(text.debugDescription) should be invalid")
    }

    @Test func metadataIsIgnoredAndPreReleaseZeroIsFine() throws {
        #expect(try #require(AppVersion("1.0.0-0")) < #require(AppVersion("1.0.0")))
        #expect(AppVersion("1.0.0+20130313144700")?.text == "1.0.0+20130313144700")
        #expect(AppVersion(" \tv1.0-rc.1 \n")?.text == "v1.0-rc.1")
        #expect(OSVersion("  17.4.1 (a)\t")?.text == "17.4.1 (a)")
        #expect(try #require(AppVersion("1.5.0-beta")) < #require(AppVersion("1.5")))
    }

    @Test func builds() throws {
        #expect(try #require(BuildNumber("2100000000")) > #require(BuildNumber("999999999")))
        #expect(try #require(BuildNumber("1.2.3")) == #require(BuildNumber("1.2.3.0")))
        #expect(try #require(BuildNumber("10")) > #require(BuildNumber("9")))
        for invalid in ["v1", "1.2-b", "1+2", "", "1.2.3.4.5", "x"] {
            #expect(BuildNumber(invalid) == nil, "\(invalid)")
        }
    }

    @Test func osVersionsWithSupplementals() throws {
        let ordered = ["16", "16.0.1", "17.4.1", "17.4.1 (a)", "17.4.1(b)", "17.4.1 (C)", "17.4.2", "17.10"]
        let versions = try ordered.map { try #require(OSVersion($0), "\($0)") }
        for (lower, upper) in zip(versions, versions.dropFirst()) { #expect(lower < upper, "\(lower) < \(upper)") }
        #expect(try #require(OSVersion("16")) == #require(OSVersion("16.0")))
        #expect(try #require(OSVersion("17.4.1 (a)")) == #require(OSVersion("17.4.1(A)")))
        for invalid in ["17.4.1 beta", "17.x", "17.4.1 (ab)", "17.4.1 (1)", "17.4.1  (a)", "(a)", "17.4.1 a"] {
            #expect(OSVersion(invalid) == nil, "\(invalid)")
        }
    }

    @Test(arguments: [
        (">=2.4.0 <2.4.3", "2.4.3-rc.1", true), (">=2.4.0 <2.4.3", "2.4.0-beta.1", false), ("<1.5", "1.5.0-beta", true),
        ("=2.3.1", "2.3.1.0", true), ("=2.3.1", "2.3.1+77", true), ("2.3.1", "2.3.2", false), ("*", "0.0.1", true),
        (">= 2.0", "2.0", true), ("> 2.0 <= 3", "3.0.0", true), ("> 2.0 <= 3", "2.0", false),
    ])
    func appRanges(_ range: String, _ version: String, _ inside: Bool) throws {
        let parsed = try #require(VersionRange<AppVersion>(range), "\(range)")
        #expect(parsed.contains(try #require(AppVersion(version))) == inside)
    }

    @Test func osRangesAndInvalidRanges() throws {
        let range = try #require(VersionRange<OSVersion>(">=17 <17.4.1(a)"))
        #expect(range.contains(try #require(OSVersion("17.4.1"))))
        #expect(!range.contains(try #require(OSVersion("17.4.1 (a)"))))
        for invalid in ["", " ", ">=", ">=>2", "=>2.0", ">=2.0 <", "2.0,3.0", "~1.2", "^1.2", "1.x"] {
            #expect(VersionRange<AppVersion>(invalid) == nil, "\(invalid.debugDescription)")
        }
    }

    @Test(arguments: [
        ("7d", 604_800), ("36h", 129_600), ("1h30m", 5_400), ("45s", 45), ("1d2h3m4s", 93_784), ("3650d", 315_360_000),
    ])
    func durations(_ text: String, _ seconds: Int64) {
        #expect(PolicyDuration(text)?.seconds == seconds)
    }

    @Test(arguments: ["", "d", "7", "1m1h", "1h1h", "3651d", "1.5h", "-1h", "7 d", "1w"])
    func invalidDurations(_ text: String) {
        #expect(PolicyDuration(text) == nil, "\(text)")
    }

    @Test func localesCompareCaseInsensitivelyAndFallBack() throws {
        #expect(try #require(LocaleTag("fr_CA")) == #require(LocaleTag("FR-ca")))
        #expect(try #require(LocaleTag("zh-Hant-TW")).fallbackKeys == ["zh-hant-tw", "zh-hant", "zh"])
        #expect(LocaleTag("es-419") != nil)
        for invalid in ["e", "englishes-US", "en-toolongsub", "en--US", "en-", "12", "en-US!", ""] {
            #expect(LocaleTag(invalid) == nil, "\(invalid)")
        }
    }

    @Test(arguments: [
        ("iPhone10,*", "iphone10,3", true), ("iPhone10,*", "iPhone11,2", false), ("iPad?,?", "iPad8,1", true),
        ("*", "", true), ("Mac*Pro*", "MacBookPro18,1", true), ("[ab]", "[ab]", true), ("[ab]", "a", false),
        ("a*b*c*d*e*f", String(repeating: "a", count: 200), false),
    ])
    func modelGlobs(_ glob: String, _ model: String, _ matches: Bool) throws {
        #expect(try #require(ModelGlob(glob)).matches(model) == matches)
    }
}
