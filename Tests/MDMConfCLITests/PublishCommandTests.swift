import Fleet
import FleetStoreSQL
import FleetTestSupport
import Foundation
import MDMConf
import Testing

/// `mdmconf publish`, `history`, `rollback` and `diff` as processes, on both stores.
@Suite struct PublishCommandTests {
    static func copy() throws -> URL { try TestStores.copyCatalog() }

    static func edit(_ catalog: URL, _ path: String, _ old: String, _ new: String) throws {
        let file = catalog.appendingPathComponent(path)
        let text = try String(contentsOf: file, encoding: .utf8)
        try text.replacingOccurrences(of: old, with: new).write(to: file, atomically: true, encoding: .utf8)
    }

    @Test(arguments: StoreKind.available)
    func publishHistoryRollback(kind: StoreKind) async throws {
        let location = try TestStores.freshLocation(kind)
        let store = location.description
        let catalog = try Self.copy()

        // A refused catalog writes nothing.
        try Self.edit(catalog, "apps/com.example.field/config.plist", "<integer>443</integer>", "<string>443</string>")
        let refused = try CLIProcess.run(["publish", catalog.path, "--store", store])
        #expect(refused.status == 78, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("nothing was published"))
        let empty = try CLIProcess.run(["history", "--store", store])
        #expect(empty.status == 0 && empty.stdout.contains("no generations"), "\(empty.stdout)\(empty.stderr)")
        try Self.edit(catalog, "apps/com.example.field/config.plist", "<string>443</string>", "<integer>443</integer>")

        let first = try CLIProcess.run([
            "publish", catalog.path, "--store", store, "--author", "alice", "--message", "initial",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("published generation 1: 20 files"), "\(first.stdout)")
        let again = try CLIProcess.run(["publish", catalog.path, "--store", store, "--author", "alice"])
        #expect(
            again.status == 0 && again.stdout.contains("unchanged: the content equals generation 1"), "\(again.stdout)")

        try Self.edit(
            catalog, "apps/com.example.field/update-policy.plist", "<string>3.0</string>", "<string>3.1</string>")
        let second = try CLIProcess.run([
            "publish", catalog.path, "--store", store, "--author", "bob", "--message", "raise the floor to 3.1",
        ])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("published generation 2"))
        #expect(second.stdout.contains("~ policies[id=field-3.0-floor].minVersion: '3.0' → '3.1'"), "\(second.stdout)")

        let rollback = try CLIProcess.run(["rollback", "1", "--store", store, "--author", "carol", "--format", "json"])
        #expect(rollback.status == 0, "\(rollback.stderr)")
        let answer = try CLIProcess.json(rollback.stdout)
        let generation = try #require(answer["generation"] as? [String: Any])
        #expect(generation["generation"] as? Int == 3 && generation["kind"] as? String == "rollback")
        #expect(generation["source"] as? Int == 1)

        let history = try CLIProcess.run(["history", "--store", store, "--format", "json"])
        let generations = try #require(
            try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        #expect(generations.map { $0["generation"] as? Int } == [3, 2, 1])
        #expect(generations.map { $0["author"] as? String } == ["carol", "bob", "alice"])
        #expect(
            generations.map { $0["message"] as? String } == [
                "rollback to generation 1", "raise the floor to 3.1", "initial",
            ])
        #expect(
            generations[0]["contentHash"] as? String == generations[2]["contentHash"] as? String,
            "a rollback has the old content")
        #expect(generations[1]["contentHash"] as? String != generations[2]["contentHash"] as? String)
        let table = try CLIProcess.run(["history", "--store", store])
        #expect(table.stdout.contains("rollback of 1"), "\(table.stdout)")

        // Generations diff like folders; 1 and 3 hold the same content.
        let diff = try CLIProcess.run(["diff", "1", "2", "--store", store])
        #expect(diff.status == 1 && diff.stdout.contains("minVersion: '3.0' → '3.1'"), "\(diff.stdout)\(diff.stderr)")
        let same = try CLIProcess.run(["diff", "1", "3", "--store", store])
        #expect(same.status == 0 && same.stdout == "no differences\n", "\(same.stdout)")
        let missing = try CLIProcess.run(["rollback", "9", "--store", store])
        #expect(missing.status == 78 && missing.stderr.contains("generation 9 is not in the store"))

        // Files are stored once per content hash: three generations of 20 files, 21 distinct blobs.
        let opened = try #require(try await TestStores.open(location) as? any SQLFleetStore)
        let blobs = try await opened.rows(FleetSQL.Statement(sql: "SELECT COUNT(*) FROM catalog_blobs", values: []))
        let rows = try await opened.rows(FleetSQL.Statement(sql: "SELECT COUNT(*) FROM catalog_files", values: []))
        #expect(blobs.first?.first?.integer == 21)
        #expect(rows.first?.first?.integer == 60)
        try await opened.close()
    }

    struct DiffCase: Sendable, CustomTestStringConvertible {
        var name: String
        var arguments: [String]
        var status: Int32
        var output: String
        var testDescription: String { name }
    }

    static let diffCases: [DiffCase] = [
        DiffCase(
            name: "two configurations",
            arguments: ["Examples/app/configs/com.example.field.plist", "Examples/app/configs/bad-port.plist"],
            status: 1, output: "~ ServerPort: 8443 (integer) → '8443' (string)"),
        DiffCase(
            name: "a configuration with itself",
            arguments: [
                "Examples/app/configs/com.example.field.plist", "Examples/app/configs/com.example.field.plist",
            ],
            status: 0, output: "no differences"),
        DiffCase(
            name: "a folder with itself", arguments: ["Examples/catalog", "Examples/catalog"], status: 0,
            output: "no differences"),
        DiffCase(
            name: "a file with a folder", arguments: ["Examples/catalog", "Examples/app/schema.xml"], status: 64,
            output: "not a file with a folder"),
        DiffCase(
            name: "a missing file", arguments: ["Examples/nothing.plist", "Examples/app/schema.xml"], status: 66,
            output: "no such file"),
        DiffCase(
            name: "a broken plist",
            arguments: ["Examples/broken/truncated.plist", "Examples/app/configs/com.example.field.plist"], status: 78,
            output: "MC1"),
        DiffCase(name: "generations without a store", arguments: ["1", "2"], status: 64, output: "--store"),
    ]

    @Test(arguments: diffCases)
    func diffs(_ testCase: DiffCase) throws {
        let result = try CLIProcess.run(["diff"] + testCase.arguments)
        #expect(result.status == testCase.status, "\(testCase.name): \(result.stdout)\(result.stderr)")
        #expect(
            (result.stdout + result.stderr).contains(testCase.output),
            "\(testCase.name): \(result.stdout)\(result.stderr)")
    }

    @Test func diffJSON() throws {
        let result = try CLIProcess.run([
            "diff", "Examples/app/configs/com.example.field.plist", "Examples/app/configs/bad-port.plist", "--format",
            "json",
        ])
        let document = try CLIProcess.json(result.stdout)
        #expect(document["equal"] as? Bool == false)
        let changes = try #require(document["changes"] as? [[String: Any]])
        #expect(changes.contains { $0["path"] as? String == "ServerPort" && $0["kind"] as? String == "changed" })
    }
}

/// `mdmconf diff` with a store says whose decision and compliance a change moves, from their latest check-ins.
@Suite struct FleetImpactTests {
    @Test func raisingTheFloorMakesDevicesRequired() async throws {
        let store = try await ReportCommandTests.populatedStore()
        let changed = try TestStores.copyCatalog()
        try PublishCommandTests.edit(
            changed, "apps/com.example.field/update-policy.plist", "<string>3.0</string>", "<string>3.2.1</string>")
        let result = try CLIProcess.run(["diff", "Examples/catalog", changed.path, "--store", store])
        #expect(result.status == 1, "\(result.stderr)")
        // iphone-0201 and iphone-0202 run 3.2.1 (still ok); iphone-0117 runs 2.3.1 (already required).
        #expect(
            result.stdout.contains("no device's update decision or compliance changes (7 devices judged)"),
            "\(result.stdout)")

        try PublishCommandTests.edit(
            changed, "apps/com.example.field/update-policy.plist", "<string>3.2.1</string>", "<string>3.3</string>")
        let raised = try CLIProcess.run([
            "diff", "Examples/catalog", changed.path, "--store", store, "--format", "json",
        ])
        let fleet = try #require(try CLIProcess.json(raised.stdout)["fleet"] as? [String: Any])
        let decisions = try #require(fleet["decisions"] as? [[String: Any]])
        #expect(decisions.count == 1, "\(decisions)")
        #expect(decisions.first?["from"] as? String == "ok" && decisions.first?["to"] as? String == "required")
        #expect(decisions.first?["devices"] as? Int == 2)
        #expect(fleet["becomeNoncompliant"] as? Int == 1, "iphone-0201 was the one compliant device: \(fleet)")
        let text = try CLIProcess.run(["diff", "Examples/catalog", changed.path, "--store", store])
        #expect(text.stdout.contains("com.example.field: 2 devices become required (from ok 2)"), "\(text.stdout)")
    }
}
