import Testing

@testable import ConfigSchema

/// The version comparison that OS-support checks use, read in place: the same answers as splitting the versions.
@Suite struct VersionComparisonTests {
    /// What splitting on dots gives: the reading the in-place comparison replaced.
    static func bySplitting(_ a: String, _ b: String) -> Int {
        let left = a.split(separator: ".").map { Int($0) ?? 0 }
        let right = b.split(separator: ".").map { Int($0) ?? 0 }
        for index in 0..<max(left.count, right.count) {
            let l = index < left.count ? left[index] : 0
            let r = index < right.count ? right[index] : 0
            if l != r { return l < r ? -1 : 1 }
        }
        return 0
    }

    @Test(arguments: [
        ("17.4", "17.10", -1), ("17.10", "17.4", 1), ("17", "17.0.0", 0), ("17.0.1", "17", 1), ("", "0", 0),
        ("", "", 0), ("1..2", "1.2", 0), ("1.2.", "1.2", 0), (".5", "5", 0), ("18.1", "18.1", 0),
        ("10.15.7", "11", -1), ("beta", "0", 0), ("1.x", "1.0", 0), ("+5", "5", 0), ("-1", "0", -1),
        ("9223372036854775807", "1", 1), ("99999999999999999999", "1", -1), ("17.4b", "17.4", -1),
        ("007", "7", 0),
    ])
    func comparesLikeSplitting(_ a: String, _ b: String, _ expected: Int) {
        #expect(compareVersions(a, b) == expected)
        #expect(compareVersions(a, b) == Self.bySplitting(a, b))
        #expect(compareVersions(b, a) == -expected)
    }

    @Test func agreesWithSplittingOnGeneratedVersions() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["", "0", "1", "4", "10", "17", "18", "x", "+2", "-3", "00", "123456789012345678901"]
        for _ in 0..<5_000 {
            func version() -> String {
                (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                    .joined(separator: ".")
            }
            let (a, b) = (version(), version())
            #expect(compareVersions(a, b) == Self.bySplitting(a, b), "\(a) vs \(b)")
        }
    }
}
