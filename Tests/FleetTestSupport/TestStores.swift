import CivilTime
import Fleet
import FleetStorePostgres
import FleetStoreSQLite
import FleetStores
import Foundation
import Logging
import MDMConf

/// The two store implementations, each test on a fresh, real database: an SQLite file in a temporary folder, or a
/// new database in the PostgreSQL cluster that `Tests/with-postgres.sh` (and so CI) starts.
public enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres

    public var description: String { rawValue }

    /// SQLite always; PostgreSQL when `MDMCONF_TEST_POSTGRES` names a cluster, and always in CI, where a missing
    /// cluster must fail the run rather than skip its tests.
    public static var available: [StoreKind] {
        TestStores.postgresURL != nil || TestStores.inCI ? [.sqlite, .postgres] : [.sqlite]
    }
}

public enum TestStores {
    public static let logger = Logger(label: "mdmconf-test") { _ in SwiftLogNoOpLogHandler() }
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    public static let exampleCatalog = packageRoot.appendingPathComponent("Examples/catalog").path

    public static var postgresURL: String? { ProcessInfo.processInfo.environment["MDMCONF_TEST_POSTGRES"] }
    public static var inCI: Bool { ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty && $0 != "false" } ?? false }

    /// A location for a fresh, empty store of `kind`.
    public static func freshLocation(_ kind: StoreKind) throws -> StoreLocation {
        switch kind {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mdmconf-fleet-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return .sqlite(path: folder.appendingPathComponent("fleet.sqlite").path)
        case .postgres:
            guard let base = postgresURL else {
                throw FleetStoreError(
                    .unusable, "PostgreSQL store tests need MDMCONF_TEST_POSTGRES: run them through Tests/with-postgres.sh")
            }
            guard case .success(.postgres(var location)) = StoreLocation.parse(base) else {
                throw FleetStoreError(.unusable, "MDMCONF_TEST_POSTGRES is not a postgres:// URL")
            }
            let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try createDatabase(name, on: location)
            location.database = name
            return .postgres(location)
        }
    }

    public static func open(_ kind: StoreKind) async throws -> any FleetStore {
        let location = try freshLocation(kind)
        guard let store = try await FleetStores.open(location, logger: logger) else {
            throw FleetStoreError(.unusable, "no store")
        }
        return store
    }

    /// `createdb` of the cluster's own binaries.
    public static func createDatabase(_ name: String, on location: PostgresLocation) throws {
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

    public static func catalog(_ path: String = exampleCatalog) throws -> Catalog {
        try CatalogLoader().load(path).get()
    }

    /// A check-in of `device` reporting `apps` as (app, version, etag).
    public static func record(
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
    public static func copyCatalog(_ path: String = exampleCatalog) throws -> URL {
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
