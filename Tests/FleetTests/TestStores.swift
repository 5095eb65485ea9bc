import CivilTime
import Fleet
import FleetStorePostgres
import FleetStoreSQLite
import FleetStores
import Foundation
import Logging
import MDMConf
import Testing

/// The two store implementations, each test on a fresh, real database: an SQLite file in a temporary folder, or a
/// new database in the PostgreSQL cluster that `Tests/with-postgres.sh` (and so CI) starts.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// SQLite always; PostgreSQL when `MDMCONF_TEST_POSTGRES` names a cluster, and always in CI, where a missing
    /// cluster must fail the run rather than skip its tests.
    static var available: [StoreKind] {
        TestStores.postgresURL != nil || TestStores.inCI ? [.sqlite, .postgres] : [.sqlite]
    }
}

enum TestStores {
    static let logger = Logger(label: "mdmconf-test") { _ in SwiftLogNoOpLogHandler() }
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let exampleCatalog = packageRoot.appendingPathComponent("Examples/catalog").path

    static var postgresURL: String? { ProcessInfo.processInfo.environment["MDMCONF_TEST_POSTGRES"] }
    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty && $0 != "false" } ?? false }

    /// A location for a fresh, empty store of `kind`.
    static func freshLocation(_ kind: StoreKind) throws -> StoreLocation {
        switch kind {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mdmconf-fleet-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return .sqlite(path: folder.appendingPathComponent("fleet.sqlite").path)
        case .postgres:
            let base = try #require(
                postgresURL, "PostgreSQL store tests need MDMCONF_TEST_POSTGRES: run them through Tests/with-postgres.sh")
            guard case .success(.postgres(var location)) = StoreLocation.parse(base) else {
                throw FleetStoreError(.unusable, "MDMCONF_TEST_POSTGRES is not a postgres:// URL")
            }
            let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try createDatabase(name, on: location)
            location.database = name
            return .postgres(location)
        }
    }

    static func open(_ kind: StoreKind) async throws -> any FleetStore {
        let location = try freshLocation(kind)
        return try #require(try await FleetStores.open(location, logger: logger))
    }

    /// `createdb` of the cluster's own binaries.
    static func createDatabase(_ name: String, on location: PostgresLocation) throws {
        let bin = ProcessInfo.processInfo.environment["MDMCONF_TEST_POSTGRES_BIN"] ?? "/usr/bin"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bin + "/createdb")
        process.arguments = ["-h", location.host, "-p", String(location.port), "-U", location.user, name]
        let err = Pipe()
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw FleetStoreError(.unusable, "createdb \(name) failed: \(message)")
        }
    }

    static func catalog(_ path: String = exampleCatalog) throws -> Catalog {
        try CatalogLoader().load(path).get()
    }

    /// A check-in of `device` reporting `apps` as (app, version, etag).
    static func record(
        _ device: String, at seconds: Int64, platform: String = "ios", osVersion: String? = "17.4.1",
        apps: [CheckIn.App], replica: String = "test"
    ) -> CheckInRecord {
        CheckInRecord(
            checkIn: CheckIn(
                device: device, at: Instant(seconds: seconds - 1), platform: platform, osVersion: osVersion,
                deviceModel: "iPhone15,2", locale: "en", timeZone: "Europe/Berlin", apps: apps),
            receivedAt: Instant(seconds: seconds), replica: replica)
    }

    /// A copy of a catalog folder (links followed) in a temporary folder, to edit.
    static func copyCatalog(_ path: String = exampleCatalog) throws -> URL {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("mdmconf-catalog-\(UUID().uuidString)")
        try copyResolvingLinks(URL(fileURLWithPath: path), to: target)
        return target
    }

    private static func copyResolvingLinks(_ source: URL, to target: URL) throws {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        let resolved = source.resolvingSymlinksInPath()
        guard manager.fileExists(atPath: resolved.path, isDirectory: &isFolder) else { return }
        if isFolder.boolValue {
            try manager.createDirectory(at: target, withIntermediateDirectories: true)
            for name in try manager.contentsOfDirectory(atPath: resolved.path) {
                try copyResolvingLinks(source.appendingPathComponent(name), to: target.appendingPathComponent(name))
            }
        } else {
            try manager.copyItem(at: resolved, to: target)
        }
    }
}
