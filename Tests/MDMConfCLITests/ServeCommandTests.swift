import Foundation
import TestScratch
import Testing

/// `mdmconf serve` as a process: refusals before listening, then a real start, reload and graceful stop.
struct ServeCommandTests {
    @Test func aMissingCatalogExits78() throws {
        let result = try CLIProcess.run(["serve", "/nonexistent/catalog", "--port", "0"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("MC6001"))
        #expect(result.stderr.contains("is not a usable catalog"))
    }

    /// Every finding of a broken catalog is printed, compiler style, before exit 78.
    @Test func aBrokenCatalogListsEveryFinding() throws {
        let root = Scratch.url("serve-broken-\(UUID().uuidString)")
        let app = root.appendingPathComponent("apps/com.example.field")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: CLIProcess.packageRoot.appendingPathComponent("Examples/app/schema.xml"),
            to: app.appendingPathComponent("schema.xml"))
        try Data("<plist><dict><key>ServerPort</key><string>443</string></dict></plist>".utf8).write(
            to: app.appendingPathComponent("config.plist"))
        try Data("<plist><dict><key>x</key><string>y</string></dict></plist>".utf8).write(
            to: root.appendingPathComponent("tokens.plist"))
        let result = try CLIProcess.run(["serve", root.path, "--port", "0"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("config.plist:1:"), "\(result.stderr)")
        #expect(result.stderr.contains("[MC2003 type-mismatch]"))
        #expect(result.stderr.contains("[MC6009 invalid-tokens]"))
    }

    @Test func developmentModeStaysOnLoopback() throws {
        let root = Scratch.url("serve-dev-\(UUID().uuidString)")
        let app = root.appendingPathComponent("apps/com.example.field")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        for name in ["schema.xml", "config.plist"] {
            try FileManager.default.copyItem(
                at: CLIProcess.packageRoot.appendingPathComponent("Examples/catalog/apps/com.example.field/\(name)")
                    .resolvingSymlinksInPath(),
                to: app.appendingPathComponent(name))
        }
        let result = try CLIProcess.run(["serve", root.path, "--host", "0.0.0.0", "--port", "0"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("refusing to listen on 0.0.0.0"))
    }

    @Test func usageErrors() throws {
        #expect(try CLIProcess.run(["serve", "Examples/catalog", "--port", "70000"]).status == 64)
        #expect(try CLIProcess.run(["serve", "Examples/catalog", "--log-level", "loud"]).status == 64)
    }

    /// Starts on a free port, reloads on SIGHUP, stops on SIGTERM with exit 0.
    @Test func startsReloadsAndStops() throws {
        let process = Process()
        process.executableURL = CLIProcess.binary
        process.arguments = ["serve", "Examples/catalog", "--port", "0"]
        process.currentDirectoryURL = CLIProcess.packageRoot
        process.environment = CLIProcess.environment
        let err = Pipe()
        process.standardError = err
        process.standardOutput = Pipe()
        try process.run()
        var log = ""
        func waitFor(_ text: String) {
            while !log.contains(text) {
                let data = err.fileHandleForReading.availableData
                if data.isEmpty { break }
                log += String(decoding: data, as: UTF8.self)
            }
        }
        waitFor("serving Examples/catalog")
        #expect(log.contains("auth=bearer tokens"))
        // No --store: an SQLite file outside the catalog, its path said at start-up.
        #expect(log.contains("fleet store: sqlite:\(CLIProcess.stateHome)/mdmconf/fleet-catalog-"), "\(log)")
        kill(process.processIdentifier, SIGHUP)
        waitFor("catalog reloaded")
        #expect(log.contains("generation=2"))
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(log)")
    }
}
