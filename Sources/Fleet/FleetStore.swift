import CivilTime
import MDMDiagnostics

/// Where fleet state lives (*Fleet state*): the latest state of each device and of each (device, app), the
/// append-only check-in history, and the daily compliance roll-ups. Two implementations, SQLite and PostgreSQL,
/// pass the same test suite; nothing here knows a driver.
public protocol FleetStore: Sendable {
    /// `sqlite:/path` or `postgres://user@host:port/db`, never with a password.
    var description: String { get }

    /// Stores a batch of check-ins in one transaction: the latest state of each device and app, and one history
    /// row per check-in. Either every check-in of the batch is committed when this returns, or it throws and none
    /// is.
    func write(_ batch: [CheckInRecord]) async throws

    /// `write(_:)` for the check-in writer, which sends one batch after another from the store's own thread:
    /// `completion` is called once the batch is stored or has failed, on a thread of the store's (a database
    /// connection's event loop, SQLite's writing thread) after this has returned, or at once with a failure when the
    /// store has closed. A store without such a thread gets the default, a task that awaits `write(_:)`.
    func write(_ batch: [CheckInRecord], completion: @escaping @Sendable (Result<Void, any Error>) -> Void)

    /// Devices in id order (byte order), after `after`, at most `limit` of them, each with every app it reported.
    func devices(after: String?, limit: Int) async throws -> [DeviceState]

    /// One device's latest state, or nil when it never checked in.
    func device(_ id: String) async throws -> DeviceState?

    /// A device's most recent check-ins, newest first.
    func checkIns(device: String, limit: Int) async throws -> [StoredCheckIn]

    /// Replaces the roll-up rows of `day` (`YYYY-MM-DD`, UTC) with `rows`.
    func saveRollup(day: String, rows: [RollupRow]) async throws

    /// Roll-up rows from `sinceDay` on (inclusive), optionally of one app, ordered by day.
    func rollups(app: String?, sinceDay: String) async throws -> [RollupRow]

    /// Deletes check-in history received before `cutoff` and roll-ups of days before `rollupCutoffDay`;
    /// returns the number of check-ins deleted.
    func prune(checkInsBefore cutoff: Instant, rollupsBefore rollupCutoffDay: String) async throws -> Int

    /// How many devices and history rows the store holds.
    func counts() async throws -> StoreCounts

    /// Releases connections and files.
    func close() async throws

    /// Makes `changes` one transaction: all committed when this returns, or none (an error).
    func commit(_ changes: [FleetChange]) async throws

    // MARK: The catalog's history

    /// Generations, newest first, at most `limit`.
    func generations(limit: Int) async throws -> [CatalogGeneration]

    /// Generation `number`, or nil when there is none.
    func generation(_ number: Int) async throws -> CatalogGeneration?

    /// The files of generation `number`, path → bytes (empty when there is no such generation). Throws
    /// `FleetStoreError` `.unusable` when a stored file cannot be read back.
    func catalogFiles(of number: Int) async throws -> [String: [UInt8]]

    /// The content hashes of generation `number`'s files.
    func catalogFileHashes(of number: Int) async throws -> Set<String>

    // MARK: Rollouts

    /// The rollout of `generation` with its steps, or nil when it was published to every device at once. Throws
    /// `FleetStoreError` `.unusable` when its plan is stored unreadable.
    func rollout(of generation: Int) async throws -> CatalogRollout?

    /// The newest generation that was rolled out, or nil.
    func newestRolloutGeneration() async throws -> Int?

    // MARK: Events

    /// Pending deliveries due at `now`, oldest first, at most `limit`, none for a disabled endpoint.
    func dueDeliveries(at now: Instant, limit: Int) async throws -> [OutboxDelivery]

    /// Deliveries, newest first: optionally of one endpoint and in one state, at most `limit`.
    func deliveries(endpoint: String?, state: OutboxDelivery.State?, limit: Int) async throws -> [OutboxDelivery]

    /// Counts of deliveries by endpoint and state.
    func deliveryCounts() async throws -> [String: [OutboxDelivery.State: Int]]

    /// The endpoints disabled by a `410`, with when.
    func disabledEndpoints() async throws -> [String: Instant]

    /// Makes failed and disabled deliveries (of one endpoint, or all) pending from `now` and enables their
    /// endpoints, in one transaction; returns how many.
    func retryDeliveries(endpoint: String?, at now: Instant) async throws -> Int

    /// Devices whose last check-in is before `cutoff` and whose watched state `kind` is not `value`, in id order,
    /// at most `limit`, with their last check-in.
    func devices(lastCheckInBefore cutoff: Instant, unlessWatched kind: String, is value: String, limit: Int)
        async throws -> [(device: String, lastCheckIn: Instant)]

    // MARK: Scans

    /// How many devices the store holds.
    func deviceCount() async throws -> Int

    /// The id of the device at 0-based `position` in id order, or nil past the end.
    func deviceID(at position: Int) async throws -> String?

    /// Generation numbers as publishes announce them (PostgreSQL `LISTEN`), and a 0 whenever listening (re)starts;
    /// nil when the store cannot announce (SQLite: followers poll). The stream ends when its consumer stops.
    func catalogNotifications() -> AsyncStream<Int>?

    /// Whether this process is the one that sends the fleet's events now. PostgreSQL: whether it holds the
    /// dispatcher's advisory lock, taken on a connection of its own and held until that connection ends (when the
    /// process dies, another replica takes it). Stores with one server: always.
    func holdsDispatcherLock() async -> Bool
}

extension FleetStore {
    /// The default for stores without a thread of their own: a task that awaits `write(_:)`, then `completion`.
    public func write(_ batch: [CheckInRecord], completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        writeInTask(batch, completion: completion)
    }

    /// `write(_:)` in a task, then `completion`: the default `write(_:completion:)`, and a store's own when it
    /// cannot write on its thread.
    public func writeInTask(
        _ batch: [CheckInRecord], completion: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        Task { completion(await Result { try await write(batch) }) }
    }
}

extension FleetStore {
    /// No announcements: followers poll.
    public func catalogNotifications() -> AsyncStream<Int>? { nil }

    /// One server per store: it sends the events.
    public func holdsDispatcherLock() async -> Bool { true }
}

/// One check-in as it is stored: what the device sent, when the server took it, which replica took it.
public struct CheckInRecord: Sendable, Equatable {
    /// What the device sent.
    public let checkIn: CheckIn
    /// When the server took it.
    public let receivedAt: Instant
    /// The replica that took it.
    public let replica: String
    /// The check-in as the history keeps it (compact JSON), made here, by the request's task, so that the writer,
    /// which is serial, does not spend its time on it.
    public let body: String
    /// States of the device that events watch (its compliance, its configuration errors), stored with the
    /// check-in; an event of a state is added to the outbox, in the same transaction, when the state changed.
    public var watched: [WatchedState]

    /// A record of `checkIn`.
    public init(checkIn: CheckIn, receivedAt: Instant, replica: String, watched: [WatchedState] = []) {
        self.checkIn = checkIn
        self.receivedAt = receivedAt
        self.replica = replica
        self.body = String(decoding: checkIn.jsonText(pretty: false), as: UTF8.self)
        self.watched = watched
    }
}

/// The stored latest state of one device: its last check-in's device fields and every app it ever reported, each
/// as last reported.
public struct DeviceState: Sendable, Equatable {
    /// One app as last reported.
    public struct App: Sendable, Equatable {
        /// The app's fields at its last report.
        public var app: CheckIn.App
        /// When it was last reported.
        public var lastCheckIn: Instant

        /// An app state.
        public init(app: CheckIn.App, lastCheckIn: Instant) {
            self.app = app
            self.lastCheckIn = lastCheckIn
        }
    }

    /// The device id.
    public var device: String
    /// The platform at its last check-in.
    public var platform: String
    /// The OS version at its last check-in.
    public var osVersion: String?
    /// The model at its last check-in.
    public var deviceModel: String?
    /// The locale at its last check-in.
    public var locale: String?
    /// The time zone at its last check-in.
    public var timeZone: String?
    /// When it was enrolled, as last reported.
    public var enrolledAt: Instant?
    /// The device's clock at its last check-in.
    public var reportedAt: Instant?
    /// When the server took its last check-in.
    public var lastCheckIn: Instant
    /// The replica that took it.
    public var replica: String
    /// Apps in id order.
    public var apps: [App]

    /// A device state.
    public init(
        device: String, platform: String, osVersion: String?, deviceModel: String?, locale: String?,
        timeZone: String?, enrolledAt: Instant?, reportedAt: Instant?, lastCheckIn: Instant, replica: String,
        apps: [App]
    ) {
        (self.device, self.platform, self.osVersion, self.deviceModel) = (device, platform, osVersion, deviceModel)
        (self.locale, self.timeZone, self.enrolledAt, self.reportedAt) = (locale, timeZone, enrolledAt, reportedAt)
        (self.lastCheckIn, self.replica, self.apps) = (lastCheckIn, replica, apps)
    }

    /// The device's fields as a check-in, for the update requests compliance makes.
    public var checkIn: CheckIn {
        var checkIn = deviceFields
        checkIn.apps = apps.map(\.app)
        return checkIn
    }

    /// The device's fields as a check-in without its apps: what an update request for one app reads (compliance
    /// asks once per device, and copying the apps each time was 3 % of a fleet summary).
    var deviceFields: CheckIn {
        CheckIn(
            device: device, at: reportedAt, platform: platform, osVersion: osVersion, deviceModel: deviceModel,
            locale: locale, timeZone: timeZone, enrolledAt: enrolledAt, apps: [])
    }
}

/// One row of the check-in history.
public struct StoredCheckIn: Sendable, Equatable {
    /// The row's id, the history's primary key.
    public var id: Int64
    /// The device id.
    public var device: String
    /// When the server took it.
    public var receivedAt: Instant
    /// The replica that took it.
    public var replica: String
    /// The check-in as compact JSON (the stored form).
    public var body: String

    /// A stored check-in.
    public init(id: Int64, device: String, receivedAt: Instant, replica: String, body: String) {
        (self.id, self.device, self.receivedAt, self.replica, self.body) = (id, device, receivedAt, replica, body)
    }
}

/// One count of a day's roll-up: on `day`, `devices` devices had `value` for `dimension` (`decision`, `config`,
/// `compliant`) of `app`.
public struct RollupRow: Sendable, Equatable, Hashable {
    /// The day, `YYYY-MM-DD` in UTC.
    public var day: String
    /// The app.
    public var app: String
    /// `decision`, `config` or `compliant`.
    public var dimension: String
    /// The value counted (`required`, `stale`, `true`…).
    public var value: String
    /// How many devices had it.
    public var devices: Int

    /// A roll-up count.
    public init(day: String, app: String, dimension: String, value: String, devices: Int) {
        (self.day, self.app, self.dimension, self.value, self.devices) = (day, app, dimension, value, devices)
    }
}

/// How many rows each table holds (tests and `/readyz`).
public struct StoreCounts: Sendable, Equatable {
    /// Rows of `devices`.
    public var devices: Int
    /// Rows of `device_apps`.
    public var deviceApps: Int
    /// Rows of the check-in history.
    public var checkIns: Int

    /// Counts as given.
    public init(devices: Int, deviceApps: Int, checkIns: Int) {
        self.devices = devices
        self.deviceApps = deviceApps
        self.checkIns = checkIns
    }
}

/// Why a store cannot be used.
public struct FleetStoreError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: Sendable, Equatable {
        /// The URL or path is not one mdmconf can use (exit 78 at start-up).
        case unusable
        /// The store was written by a newer mdmconf (exit 78).
        case tooNew
        /// The database did not answer or refused a write (check-ins 503).
        case unavailable
    }

    /// The kind of failure.
    public let kind: Kind
    /// What happened, for logs and answers.
    public let message: String

    /// An error of `kind`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
