import Testing
import UpdatePolicy

struct RolloutTests {
    /// The reference values of *Update policies*
    @Test(arguments: [
        ("pilot-2025", "device-0001", 6835), ("pilot-2025", "device-0002", 5234), ("pilot-2026", "device-0003", 582),
    ])
    func referenceBuckets(_ seed: String, _ device: String, _ bucket: Int) {
        #expect(Rollout.bucket(seed: seed, deviceID: device) == bucket)
        #expect(Rollout.bucket(seed: seed, deviceID: "  \(device.uppercased())\t") == bucket, "trimmed and lowercased")
    }

    @Test func percentBoundariesAreExact() throws {
        let in6836 = try #require(RolloutPercent(literal: "68.36"))
        let out6835 = try #require(RolloutPercent(literal: "68.35"))
        #expect(Rollout.includes(percent: in6836, seed: "pilot-2025", deviceID: "device-0001"))
        #expect(!Rollout.includes(percent: out6835, seed: "pilot-2025", deviceID: "device-0001"))
    }

    @Test func everyoneAndNoOne() throws {
        let all = try #require(RolloutPercent(literal: "100"))
        let none = try #require(RolloutPercent(literal: "0"))
        let half = try #require(RolloutPercent(literal: "50"))
        #expect(Rollout.includes(percent: all, seed: "s", deviceID: nil))
        #expect(!Rollout.includes(percent: none, seed: "s", deviceID: "device-0001"))
        #expect(!Rollout.includes(percent: half, seed: "s", deviceID: nil))
        #expect(!Rollout.includes(percent: half, seed: "s", deviceID: "   "))
    }

    @Test func raisingThePercentOnlyAddsDevices() throws {
        let devices = (0..<2_000).map { "device-\($0)" }
        var previous: Set<String> = []
        for percent in stride(from: 0, through: 100, by: 5) {
            let parsed = try #require(RolloutPercent(literal: String(percent)))
            let included = Set(devices.filter { Rollout.includes(percent: parsed, seed: "wave", deviceID: $0) })
            #expect(previous.isSubset(of: included))
            previous = included
        }
        #expect(previous.count == devices.count)
    }

    @Test(arguments: [("25.5", 2_550), ("68.35", 6_835), ("100", 10_000), ("0", 0), ("7.1", 710), ("007", 700)])
    func percents(_ text: String, _ hundredths: Int) {
        #expect(RolloutPercent(literal: text)?.hundredths == hundredths)
    }

    @Test(arguments: ["52.340000000000003", "100.01", "101", "-1", "1e2", "", ".5", "5.", "abc", "1.234"])
    func invalidPercents(_ text: String) {
        #expect(RolloutPercent(literal: text) == nil, "\(text)")
    }
}
