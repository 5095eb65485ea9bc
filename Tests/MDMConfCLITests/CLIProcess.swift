import Foundation
import TestScratch

/// Runs the built `mdmconf` binary as a separate process, as a user or script would.
enum CLIProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `mdmconf` binary built beside the test bundle.
    static let binary: URL = {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        // On macOS the test bundle is Foo.xctest/Contents/MacOS/Foo.
        while folder.path != "/"
            && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("mdmconf").path)
        {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appendingPathComponent("mdmconf")
    }()

    /// `XDG_STATE_HOME` (and `XDG_CACHE_HOME` below it) for every process the tests start, so `serve`'s default
    /// store and the schema index never land in the developer's home.
    static let stateHome: String = {
        let folder = Scratch.url("mdmconf-state-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.path
    }()

    static var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XDG_STATE_HOME"] = stateHome
        env["XDG_CACHE_HOME"] = stateHome + "/cache"
        // A child that crashes must fail its test, not hang it: the Swift runtime's backtracer attaches to a crashed
        // child and keeps its output pipes open, and on this Linux it was seen waiting for ever (2026-11-27).
        env["SWIFT_BACKTRACE"] = "enable=no"
        return env
    }

    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Result {
        try run(binary, arguments, in: packageRoot, stdin: stdin, environment: environment)
    }

    /// `run` on a thread of its own: a long process (a browser session) does not hold one of the few threads every
    /// async test shares.
    static func runDetached(
        _ executable: URL, _ arguments: [String], in folder: URL, environment: [String: String] = [:]
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Swift.Result { try run(executable, arguments, in: folder, environment: environment) })
            }
        }
    }

    /// Runs any program (the example app, git with the hook) with the tests' environment plus `environment`.
    static func run(
        _ executable: URL, _ arguments: [String], in folder: URL, stdin: String? = nil,
        environment: [String: String] = [:]
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        var env = Self.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes concurrently so a large output cannot block the child.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs a program found on `PATH` (or at an absolute path) in the package root: `swiftc`, a compiled driver.
    static func runTool(_ name: String, _ arguments: [String]) throws -> Result {
        try run(URL(fileURLWithPath: "/usr/bin/env"), [name] + arguments, in: packageRoot)
    }

    static func temporaryFile(_ name: String, _ contents: String) throws -> String {
        let folder = Scratch.url("mdmconf-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(name).path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func json(_ text: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
    }
}
