import CivilTime
import Fleet
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import MDMConf
import NIOCore
import PropertyList
import ServiceLifecycle
import UnixSignals
import WebhookEvents

/// How `mdmconf serve` runs.
public struct ServerOptions: Sendable {
    /// The address to listen on (`--host`); development mode only on loopback.
    public var host: String
    /// The port to listen on (`--port`; 0 picks a free one).
    public var port: Int
    /// Poll the catalog folder and reload on change (every `reloadInterval` of the settings).
    public var watch: Bool
    /// Reload on SIGHUP (off in tests that run several servers in one process).
    public var reloadOnSIGHUP: Bool
    /// The reader limits every request body is read with, as the catalog's files are.
    public var readerOptions: PlistReaderOptions
    /// Seconds between the fleet's daily roll-up and retention passes (nil: none, as in most tests).
    public var fleetMaintenanceInterval: Double?
    /// `--from-store`: seconds between checks for a newer stored generation (nil: the catalog is a folder).
    public var followStoreInterval: Double?
    /// `--from-store`: seconds between checks of a rollout's health gate and schedule (nil: none).
    public var rolloutCheckInterval: Double?
    /// How long an admin page session lasts after login, in seconds (*The admin page*).
    public var adminSessionLifetime: Double = 8 * 3600
    /// The time admin sessions are opened and expired by (tests move it instead of waiting).
    public var clock: @Sendable () -> Instant = { .now }
    /// HTTPS (TLS 1.2+, HTTP/2 and HTTP/1.1 by ALPN) with this certificate; nil serves plain HTTP/1.1.
    public var tls: ServerTLS?
    /// Re-read the TLS certificate and key on SIGHUP (also with `--from-store`, where SIGHUP reloads no folder).
    public var reloadTLSOnSIGHUP = false
    /// Send the outbox's events (off in tests that do not send events).
    public var dispatchEvents = true
    /// When failed deliveries are tried again (`--event-retry-base` sets the first wait).
    public var eventSchedule = DeliverySchedule()
    /// `--public-url`: the https URL devices reach this server at, which the declarative channel's asset URLs start
    /// with (default: the listening address when serving TLS, or in development mode on loopback).
    public var publicURL: String?

    /// Options with the defaults of `mdmconf serve`.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, watch: Bool = false, reloadOnSIGHUP: Bool = true,
        readerOptions: PlistReaderOptions = PlistReaderOptions(), fleetMaintenanceInterval: Double? = nil
    ) {
        (self.fleetMaintenanceInterval, self.host, self.port) = (fleetMaintenanceInterval, host, port)
        (self.watch, self.reloadOnSIGHUP, self.readerOptions) = (watch, reloadOnSIGHUP, readerOptions)
    }

    /// True for `localhost`, `127.0.0.0/8` and `::1`: where development mode may listen.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}

/// The HTTP service over a catalog store: the application is built separately from running it, so tests can
/// run it on an ephemeral port.
public enum MDMConfServer {
    /// The application serving `store`: routes, the fast paths in front of them, TLS when `options` has it, and
    /// the services that reload, follow the store and maintain the fleet. `onServerRunning` is called with the
    /// listening channel (tests read the port from it).
    public static func buildApplication(
        store: CatalogStore, fleet: FleetService = FleetService(store: nil, replica: "test"), options: ServerOptions,
        logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        _ = ServerMetrics.registry
        ServerMetrics.catalogGeneration.record(store.current.generation)
        let router = Router(context: BasicRequestContext.self)
        router.middlewares.add(MetricsMiddleware())
        router.middlewares.add(NotFoundMiddleware())
        Routes(store: store, fleet: fleet, readerOptions: options.readerOptions).register(on: router)
        FleetRoutes(catalogs: store, fleet: fleet, readerOptions: options.readerOptions).register(on: router)
        AdminRoutes(catalogs: store, fleet: fleet, options: options).register(on: router)
        DDMRoutes(
            catalogs: store, fleet: fleet, readerOptions: options.readerOptions,
            baseURL: DDMRoutes.baseURL(options: options, development: store.current.catalog.tokens == nil)
        ).register(on: router)
        let timeout = TimeAmount.nanoseconds(Int64(store.current.catalog.settings.requestTimeout * 1_000_000_000))
        var services: [any Service] = []
        let tlsOnSIGHUP = options.reloadTLSOnSIGHUP ? options.tls : nil
        if options.watch || options.reloadOnSIGHUP || tlsOnSIGHUP != nil {
            services.append(
                CatalogReloader(
                    store: store, watch: options.watch, onSIGHUP: options.reloadOnSIGHUP, tls: tlsOnSIGHUP,
                    logger: logger))
        }
        if let fleetStore = fleet.store, let interval = options.followStoreInterval {
            services.append(
                GenerationFollower(
                    generations: StoredGenerations(
                        catalogs: store, history: CatalogHistory(store: fleetStore),
                        loader: CatalogLoader(readerOptions: options.readerOptions), logger: logger),
                    interval: interval))
        }
        if let fleetStore = fleet.store, options.dispatchEvents {
            services.append(
                EventDispatcher(
                    outbox: EventOutbox(store: fleetStore), catalogs: store, fleet: fleet,
                    schedule: options.eventSchedule, environment: ProcessInfo.processInfo.environment,
                    readerOptions: options.readerOptions, logger: logger))
        }
        if let fleetStore = fleet.store, options.followStoreInterval != nil,
            let interval = options.rolloutCheckInterval
        {
            services.append(
                RolloutSupervisor(
                    catalogs: store, rollouts: CatalogRollouts(store: fleetStore), fleet: fleet, interval: interval,
                    logger: logger))
        }
        if fleet.store != nil, let interval = options.fleetMaintenanceInterval {
            services.append(FleetMaintenance(fleet: fleet, catalogs: store, interval: interval, logger: logger))
        }
        let intake = CheckInIntake(fleet: fleet, readerOptions: options.readerOptions)
        let handlers: @Sendable () -> [any RemovableChannelHandler] = {
            var handlers: [any RemovableChannelHandler] = [
                RequestDeadlineHandler(timeout: timeout), ConfigFastPath(store: store),
            ]
            if let writer = fleet.writer {
                handlers.append(CheckInFastPath(catalogs: store, intake: intake, writer: writer))
            }
            return handlers
        }
        let checkIns = fleet.writer.map { (intake: intake, writer: $0) }
        let server: HTTPServerBuilder
        if let tls = options.tls {
            // TLS with HTTP/2 by ALPN; HTTP/1.1 connections and HTTP/2 streams keep the deadline and the fast path.
            server = .init { responder in
                WireFastPathChannel(
                    base: try HTTP2UpgradeChannel(
                        tlsConfiguration: tls.configuration,
                        configuration: .init(streamConfiguration: .init(additionalChannelHandlers: handlers())),
                        responder: responder),
                    store: store, readerOptions: options.readerOptions, checkIns: checkIns, tls: true)
            }
        } else {
            server = .init { responder in
                WireFastPathChannel(
                    base: HTTP1Channel(
                        responder: responder, configuration: .init(additionalChannelHandlers: handlers())),
                    store: store, readerOptions: options.readerOptions, checkIns: checkIns, tls: false)
            }
        }
        return Application(
            router: router,
            server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(options.host, port: options.port), serverName: "mdmconf"),
            services: services, onServerRunning: onServerRunning, logger: logger)
    }
}

/// `serve --from-store`: brings what is served in line with the fleet store (`StoredGenerations`) on every
/// PostgreSQL notification of a publish or rollout step (`LISTEN`), and every `interval` on SQLite (every 2 s on
/// PostgreSQL, in case a notification was lost); a check reads two rows by primary key.
struct GenerationFollower: Service {
    let generations: StoredGenerations
    let interval: Double

    func run() async throws {
        let (checks, check) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let notifications = generations.history.store.catalogNotifications()
        // With notifications the poll is only a safety net.
        let poll = notifications == nil ? interval : max(interval, 2)
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let notifications {
                group.addTask { for await _ in notifications { check.yield() } }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(Int(poll * 1000)))
                    check.yield()
                }
            }
            group.addTask {
                var (installed, failed): (StoredGenerations.Key?, StoredGenerations.Key?) = (nil, nil)
                for await _ in checks {
                    (installed, failed) = await generations.sync(installed: installed, failed: failed)
                }
            }
            try await gracefulShutdown()
            check.finish()
            group.cancelAll()
        }
    }
}

/// Unmatched routes answer in the JSON error shape instead of an empty 404; a path the API has with another
/// method is 405 with `Allow` (the routes are read from the OpenAPI document, so the two cannot disagree).
struct NotFoundMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            if let allowed = RouteTable.shared.methods(forPath: request.uri.path), !allowed.isEmpty {
                var headers = HTTPFields()
                headers[.allow] = allowed.joined(separator: ", ")
                return Answer.error(
                    .methodNotAllowed, RequestCode.notFound,
                    "\(request.uri.path) does not take \(request.method) (it takes \(allowed.joined(separator: ", ")))",
                    code: "method_not_allowed", headers: headers)
            }
            return Answer.error(.notFound, RequestCode.notFound, "no route \(request.method) \(request.uri.path)")
        }
    }
}

/// The API's paths and their methods, from the OpenAPI document.
struct RouteTable: Sendable {
    static let shared = RouteTable(openAPI: OpenAPIDocument.bytes)

    /// Path templates split at `/` (`{name}` matches any one segment) with their methods, upper case.
    let routes: [(segments: [Substring], methods: [String])]

    init(openAPI document: [UInt8]) {
        let root = (try? JSONSerialization.jsonObject(with: Data(document))) as? [String: Any]
        let paths = root?["paths"] as? [String: Any] ?? [:]
        routes = paths.keys.sorted().map { path in
            let operations = paths[path] as? [String: Any] ?? [:]
            let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"].filter {
                operations[$0] != nil
            }.map { $0.uppercased() }
            return (path.split(separator: "/", omittingEmptySubsequences: false), methods)
        }
    }

    /// The methods the API takes at `path`, or nil when no route has that path.
    func methods(forPath path: String) -> [String]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for route in routes where route.segments.count == segments.count {
            let matches = zip(route.segments, segments).allSatisfy { template, segment in
                (template.hasPrefix("{") && template.hasSuffix("}") && !segment.isEmpty) || template == segment
            }
            if matches { return route.methods }
        }
        return nil
    }
}

/// Reloads the catalog (and re-reads the TLS certificate) on SIGHUP, and with `--watch` the catalog whenever the
/// folder's stamp changes.
struct CatalogReloader: Service {
    let store: CatalogStore
    let watch: Bool
    let onSIGHUP: Bool
    let tls: ServerTLS?
    let logger: Logger

    func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            if onSIGHUP || tls != nil {
                group.addTask {
                    for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
                        if onSIGHUP {
                            logger.info("SIGHUP: reloading the catalog")
                            store.reload()
                        }
                        tls?.reload(logger: logger)
                    }
                }
            }
            if watch {
                group.addTask {
                    var stamp = CatalogLoader.stamp(of: store.path)
                    while !Task.isCancelled && !Task.isShuttingDownGracefully {
                        let interval = store.current.catalog.settings.reloadInterval
                        try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
                        let now = CatalogLoader.stamp(of: store.path)
                        guard now != stamp else { continue }
                        stamp = now
                        logger.info("catalog changed on disk: reloading")
                        store.reload()
                    }
                }
            }
            try await gracefulShutdown()
            group.cancelAll()
        }
    }
}
