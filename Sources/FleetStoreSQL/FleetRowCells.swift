import CivilTime
import Fleet
import MDMDiagnostics

/// A row's cells read one after another in column order, each driver from its own source (PostgreSQL's wire bytes,
/// a SQLite statement), with no array of values in between: the one decoding of the fleet's device and app rows
/// (``FleetSQL/deviceState(_:)``, ``FleetSQL/appState(_:)``) reads through it. Reading the rows of a 100,000-device
/// fleet into arrays first was a sixth of a fleet scan's time.
public protocol FleetRowCells {
    /// The next cell's text, nil when it is NULL; throws when the row has no more cells.
    mutating func optionalText() throws -> String?

    /// The next cell's integer, nil when it is NULL; throws when it is not an integer or the row has no more cells.
    mutating func optionalInteger() throws -> Int64?

    /// The next cell's text; nil when it is NULL or the row has no more cells (a column a later migration added).
    mutating func trailingText() -> String?
}

extension FleetRowCells {
    /// The next cell's text; throws when it is NULL.
    @inlinable
    public mutating func text() throws -> String {
        guard let text = try optionalText() else { throw FleetStoreError(.unavailable, "a NOT NULL column is null") }
        return text
    }

    /// The next cell's integer; throws when it is NULL.
    @inlinable
    public mutating func integer() throws -> Int64 {
        guard let number = try optionalInteger() else {
            throw FleetStoreError(.unavailable, "a NOT NULL column is null")
        }
        return number
    }
}

extension FleetSQL {
    /// A device row in the column order of ``devices(dialect:)``, its apps added later.
    @inlinable
    public static func deviceState<Cells: FleetRowCells>(_ cells: inout Cells) throws -> DeviceState {
        DeviceState(
            device: try cells.text(), platform: try cells.text(), osVersion: try cells.optionalText(),
            deviceModel: try cells.optionalText(), locale: try cells.optionalText(), timeZone: try cells.optionalText(),
            enrolledAt: try cells.optionalInteger().map { Instant(seconds: $0) },
            reportedAt: try cells.optionalInteger().map { Instant(seconds: $0) },
            lastCheckIn: Instant(seconds: try cells.integer()), replica: try cells.text(), apps: [])
    }

    /// An app row in the column order of ``apps(dialect:schema:)``, with or without the DDM states of migration 9:
    /// its device and state.
    @inlinable
    public static func appState<Cells: FleetRowCells>(_ cells: inout Cells) throws -> (
        device: String, app: DeviceState.App
    ) {
        let device = try cells.text()
        var app = CheckIn.App(
            app: try cells.text(), version: try cells.text(), build: try cells.optionalText(),
            channel: try cells.optionalText(), configETag: try cells.optionalText(),
            configError: try cells.optionalText(), deferralsUsed: try cells.optionalInteger())
        let lastCheckIn = Instant(seconds: try cells.integer())
        app.ddm = ddmState(delivery: cells.trailingText(), cells.trailingText(), cells.trailingText())
        return (device, DeviceState.App(app: app, lastCheckIn: lastCheckIn))
    }
}

/// App rows, ordered by device, gathered by device as they are read (``add(_:)``), then given to their devices
/// (``attach(to:)``) an array per device. Listing the rows first and appending each to its device copied every app
/// (a dozen texts retained, then released with the list) and compared device ids row by row.
public struct DeviceApps: Sendable {
    private var devices: [String] = []
    private var apps: [[DeviceState.App]] = []

    /// No apps yet.
    public init() {}

    /// The app row `cells` stand on (``FleetSQL/appState(_:)``).
    @inlinable
    public mutating func add<Cells: FleetRowCells>(_ cells: inout Cells) throws {
        let (device, app) = try FleetSQL.appState(&cells)
        append(app, of: device)
    }

    /// `app`, of `device`. The rows come ordered by device: a device's apps follow one another.
    public mutating func append(_ app: DeviceState.App, of device: String) {
        if let last = devices.last, last == device {
            apps[apps.count - 1].append(app)
        } else {
            devices.append(device)
            apps.append([app])
        }
    }

    /// Gives each device of `devices` (ordered by device, as the rows were) its apps.
    public func attach(to devices: inout [DeviceState]) {
        var index = 0
        for group in self.devices.indices {
            let device = self.devices[group]
            while index < devices.count, devices[index].device.utf8Precedes(device) { index += 1 }
            guard index < devices.count, devices[index].device == device else { continue }
            devices[index].apps = apps[group]
        }
    }
}
