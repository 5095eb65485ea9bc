import Foundation
import Testing

/// Every input the fuzzers once broke (`Tests/Fuzz/Regressions/TARGET/`) replayed through the fuzz target that
/// found it, by the `mdmconf-fuzz` binary itself: the same property the fuzzer checks (a reader's value writes
/// and reads back, the policy engine answers every query), where a failure is a trap and the process dies.
struct FuzzRegressionTests {
    static let folder = CLIProcess.packageRoot.appendingPathComponent("Tests/Fuzz/Regressions")
    static let binary = CLIProcess.binary.deletingLastPathComponent().appendingPathComponent("mdmconf-fuzz")

    /// The folders of saved inputs, each named for its target.
    static let targets: [String] =
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()

    @Test func everyFolderIsATargetWithInputs() throws {
        #expect(Self.targets.count >= 3, "\(Self.targets)")
        let usage = try CLIProcess.run(Self.binary, [], in: CLIProcess.packageRoot)
        #expect(usage.status == 64)
        for target in Self.targets {
            #expect(usage.stdout.split(whereSeparator: \.isWhitespace).contains(Substring(target)), "no fuzz target '\(target)'")
        }
    }

    @Test(arguments: targets)
    func savedInputsReplayWithoutATrap(_ target: String) throws {
        let inputs = try FileManager.default.contentsOfDirectory(atPath: Self.folder.appendingPathComponent(target).path)
        #expect(!inputs.isEmpty)
        let replay = try CLIProcess.run(
            Self.binary, [target, "Tests/Fuzz/Regressions/\(target)"], in: CLIProcess.packageRoot)
        #expect(replay.status == 0, "\(target): \(replay.stderr.suffix(2_000))")
        #expect(replay.stdout.contains("\(target): \(inputs.count) inputs replayed, no crash"), "\(replay.stdout)")
    }
}
