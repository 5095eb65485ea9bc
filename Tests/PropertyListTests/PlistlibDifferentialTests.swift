import Foundation
import MDMDiagnostics
import PropertyList
import TestScratch
import Testing

/// mdmconf's readers against Python's `plistlib`, the reference reader present on the machine.
/// Skipped, with a message, where no Python 3 is found.
@Suite(.enabled(if: Plistlib.interpreter != nil, "python3 not found: plistlib differential tests skipped"))
struct PlistlibDifferentialTests {
    @Test(arguments: [1, 2, 3, 4])
    func readsWhatPlistlibWrites(_ seed: Int) throws {
        let folder = try Plistlib.temporaryFolder()
        let results = try Plistlib.run(["generate", String(seed), "60", folder.path])
        let reader = PropertyListReader()
        let items = try Plistlib.objects(results)
        #expect(items.count == 60)
        for item in items {
            let expected = try #require(item["value"])
            for format in ["xml", "binary"] {
                guard case .string(let path)? = item[format]?.value else { continue }
                let (document, _) = try reader.readFile(path)
                let findings = document.diagnostics.filter { $0.code != PlistCode.keyWhitespace }
                #expect(findings.isEmpty, "\(path): \(findings.map(\.message))")
                let root = try #require(document.root, "\(path)")
                #expect(Plistlib.canonical(root.value) == expected.value, "\(path)")
            }
        }
    }

    @Test(arguments: [11, 12, 13])
    func plistlibReadsWhatMdmconfWrites(_ seed: Int) throws {
        let folder = try Plistlib.temporaryFolder()
        var rng = SeededGenerator(seed: UInt64(seed))
        var paths: [String] = []
        var values: [PlistValue] = []
        for index in 0..<60 {
            let value: PlistValue = .dictionary(
                PlistDictionary([.init(key: "root", value: PlistNode(RandomPlist.value(&rng)))]))
            let path = folder.appendingPathComponent("\(index).plist").path
            try PlistWriter.xml(value).write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
            values.append(value)
        }
        let results = try Plistlib.objects(try Plistlib.run(["canon"] + paths))
        #expect(results.count == values.count)
        for (value, result) in zip(values, results) {
            #expect(result["error"] == nil, "\(result["error"]?.value as Any)")
            #expect(result["value"]?.value == Plistlib.canonical(value))
        }
    }

    /// Every corpus file that plistlib reads, mdmconf reads to an equal value.
    @Test func corpusFilesReadEqual() throws {
        let folders = ["configs", "manifests"].map { Plistlib.corpus.appendingPathComponent($0) }
        var paths: [String] = []
        for folder in folders {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            paths += names.map { folder.appendingPathComponent($0).path }
        }
        try #require(paths.count > 30, "corpus not found beside the project at \(Plistlib.corpus.path)")
        let results = try Plistlib.objects(try Plistlib.run(["canon"] + paths))
        var compared = 0
        for result in results {
            guard case .string(let path)? = result["path"]?.value, let expected = result["value"] else { continue }
            let (document, _) = try PropertyListReader().readFile(path)
            let root = try #require(document.root, "\(path): \(document.diagnostics.map(\.message))")
            #expect(Plistlib.canonical(root.value) == expected.value, "\(path)")
            compared += 1
        }
        #expect(compared >= 35)
    }
}

/// The XML and binary vectors of CPython's own plistlib tests, read from the installed `test.test_plistlib`
/// (not copied here). Known, deliberate differences: integers beyond the signed 64-bit range, which plistlib
/// reads at any size and mdmconf reports as MC1016 (managed preferences are 64-bit; CFPreferences reads larger
/// values inconsistently).
@Suite(.enabled(if: Plistlib.cpythonVectors != nil, "CPython's test.test_plistlib not installed: its vectors skipped"))
struct CPythonVectorTests {
    @Test func readersAgreeOnCPythonsVectors() throws {
        let results = try #require(Plistlib.cpythonVectors)
        #expect(results.count >= 40)
        let folder = try Plistlib.temporaryFolder()
        var convertedPaths: [String: PlistValue] = [:]
        for result in results {
            guard case .string(let path)? = result["path"]?.value, case .string(let name)? = result["name"]?.value
            else { continue }
            let (document, _) = try PropertyListReader().readFile(path)
            let errors = document.diagnostics.filter { $0.severity == .error }
            if let expected = result["value"] {
                if name.hasPrefix("testdata.") {
                    #expect(errors.map(\.code) == [PlistCode.integerOverflow], "\(name): \(errors.map(\.message))")
                    #expect(errors.first?.keyPath == "aBigInt2")
                    continue
                }
                #expect(errors.isEmpty, "\(name): plistlib reads it, mdmconf says \(errors.map(\.message))")
                let root = try #require(document.root, "\(name)")
                #expect(Plistlib.canonical(root.value) == expected.value, "\(name) reads to another value")
                // End to end, as `mdmconf convert` does: the XML reads back equal in mdmconf (and in plistlib,
                // below); JSON, which has no dates or data, reads back to a value that writes the same JSON.
                let xml = try PlistWriter.xml(root.value)
                let backXML = PropertyListReader().read(Array(xml.utf8), file: "\(name).xml")
                #expect(backXML.diagnostics.filter { $0.severity == .error }.isEmpty, "\(name) as XML")
                #expect(backXML.root.map { Plistlib.canonical($0.value) } == Plistlib.canonical(root.value), "\(name) as XML")
                let json = PlistWriter.json(root.value)
                let backJSON = PropertyListReader().read(Array(json.utf8), file: "\(name).json")
                #expect(backJSON.diagnostics.filter { $0.severity == .error }.isEmpty, "\(name) as JSON")
                #expect(backJSON.root.map { PlistWriter.json($0.value) } == json, "\(name) as JSON")
                let converted = folder.appendingPathComponent("\(name).converted.plist")
                try Data(xml.utf8).write(to: converted)
                convertedPaths[converted.path] = expected.value
            } else {
                #expect(
                    !errors.isEmpty, "\(name): plistlib refuses it (\(result["error"]?.value as Any)), mdmconf reads it"
                )
            }
        }
        // plistlib reads every converted XML back to the value it read from the vector.
        let reread = try Plistlib.objects(try Plistlib.run(["canon"] + convertedPaths.keys.sorted()))
        #expect(reread.count == convertedPaths.count)
        for result in reread {
            guard case .string(let path)? = result["path"]?.value else { continue }
            #expect(result["value"]?.value == convertedPaths[path], "\(path): \(result["error"]?.value as Any)")
        }
    }
}

enum Plistlib {
    /// The oracle's answers for CPython's vectors, or nil when Python or its test suite is missing.
    static let cpythonVectors: [PlistDictionary]? = {
        guard interpreter != nil, let folder = try? temporaryFolder(),
            let output = try? run(["cpython-vectors", folder.path])
        else { return nil }
        return try? objects(output)
    }()

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    static let oracle = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/plistlib_oracle.py")

    /// `MDMCONF_PYTHON`, or the first `python3` on the PATH.
    static let interpreter: String? = {
        if let explicit = ProcessInfo.processInfo.environment["MDMCONF_PYTHON"] { return explicit }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    static func temporaryFolder() throws -> URL {
        let folder = Scratch.url(
            "mdmconf-plistlib-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func run(_ arguments: [String]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: interpreter ?? "python3")
        process.arguments = [oracle.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw OracleFailed(status: process.terminationStatus) }
        return Array(data)
    }

    struct OracleFailed: Error { var status: Int32 }

    static func objects(_ json: [UInt8]) throws -> [PlistDictionary] {
        let document = JSONPlistReader().read(json, file: "oracle.json")
        guard case .array(let items)? = document.root?.value else { throw OracleFailed(status: -1) }
        return items.compactMap { if case .dictionary(let dict) = $0.value { dict } else { nil } }
    }

    /// The same tagged form the oracle prints.
    static func canonical(_ value: PlistValue) -> PlistValue {
        switch value {
        case .string(let text): ["str", .string(text)]
        case .integer(let number): ["int", .string(String(number))]
        case .real(let number):
            ["real", .string(number.isNaN ? "nan" : String(number.bitPattern, radix: 16).leftPadded(to: 16))]
        case .boolean(let flag): ["bool", .boolean(flag)]
        case .date(let date): ["date", .integer(Int64((date.secondsSince1970 * 1000).rounded()))]
        case .data: ["data", PlistWriter.jsonValue(value).plistString]
        case .array(let items): ["array", .array(items.map { PlistNode(canonical($0.value)) })]
        case .dictionary(let dict):
            [
                "dict",
                .array(
                    dict.entries.map {
                        PlistNode(.array([PlistNode(.string($0.key)), PlistNode(canonical($0.value.value))]))
                    }),
            ]
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

extension JSONValue {
    fileprivate var plistString: PlistValue { if case .string(let text) = self { .string(text) } else { "" } }
}
