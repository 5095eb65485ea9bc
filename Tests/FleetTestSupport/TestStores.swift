import CivilTime
import Fleet
import FleetStorePostgres
import FleetStoreSQLite
import FleetStores
import Foundation
import Logging
import MDMConf
import TestScratch

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
            let folder = Scratch.url("mdmconf-fleet-\(UUID().uuidString)")
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
        try await open(try freshLocation(kind))
    }

    /// Opens a test store. The whole suite runs at once on two cores, where a PostgreSQL pool's first answer can
    /// wait behind dozens of processes: the tests allow it a minute (a server's own default stays 10 s).
    public static func open(_ location: StoreLocation) async throws -> any FleetStore {
        guard let store = try await FleetStores.open(location, logger: logger, connectTimeout: .seconds(60)) else {
            throw FleetStoreError(.unusable, "no store")
        }
        return store
    }

    /// `createdb` of the cluster's own binaries.
    public static func createDatabase(_ name: String, on location: PostgresLocation) throws {
        let bin = ProcessInfo.processInfo.environment["MDMCONF_TEST_POSTGRES_BIN"] ?? "/usr/bin"
        try Spawn.run([bin + "/createdb", "-h", location.host, "-p", String(location.port), "-U", location.user, name])
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
        let target = Scratch.url("mdmconf-catalog-\(UUID().uuidString)")
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

/// A PostgreSQL cluster of a test's own (`Tests/pg-cluster.sh`), for tests that stop and start the database under
/// a running server without disturbing the shared cluster other tests use.
public final class PostgresCluster: Sendable {
    public let folder: String
    public let port: Int
    public let location: StoreLocation
    private static let script = TestStores.packageRoot.appendingPathComponent("Tests/pg-cluster.sh").path

    public init() throws {
        folder = Scratch.url("mdmconf-pg-\(UUID().uuidString)").path
        port = try Int(Spawn.run(["python3", "-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"]).filter(\.isNumber)) ?? 0
        try Spawn.run(["bash", Self.script, "init", folder])
        try Spawn.run(["bash", Self.script, "start", folder, String(port)])
        let server = PostgresLocation(
            user: "mdmconf", password: nil, host: "127.0.0.1", port: port, database: "fleet", socketDirectory: nil)
        try TestStores.createDatabase("fleet", on: server)
        location = .postgres(server)
    }

    /// An immediate shutdown, as a crash or a failover.
    public func stop() throws { try Spawn.run(["bash", Self.script, "stop", folder]) }

    public func start() throws { try Spawn.run(["bash", Self.script, "start", folder, String(port)]) }

    public func remove() {
        try? stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
