import ArgumentParser
import Dispatch
import Foundation
import Fleet
import FleetStores
import Logging
import MDMConf
import MDMConfCommandSupport
import MDMConfServer
import MDMDiagnostics
import ServiceLifecycle
import WebhookEvents

struct ServeCommand: ParsableCommand {
    static let configuration = ServerCommands.serve

    @Argument(help: "The catalog folder (apps/, profiles/, devices.plist, tokens.plist).")
    var catalog: String = "."

    @Option(name: .long, help: "The address to listen on.") var host = "127.0.0.1"
    @Option(name: .long, help: "The port to listen on (0 picks a free one).") var port = 8080
    @Flag(name: .long, help: "Reload the catalog when a file in it changes.") var watch = false
    @Flag(
        name: .customLong("insecure-no-auth"),
        help: "Allow development mode (no tokens.plist: no authentication) on a non-loopback address.")
    var insecureNoAuth = false
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"
    @Option(
        name: .long,
        help:
            "The fleet store: sqlite:PATH, postgres://user@host:port/db or none (default: an SQLite file per catalog).")
    var store: String?
    @Flag(
        name: .customLong("from-store"),
        help:
            "Serve the newest generation published to --store (mdmconf publish) and follow new ones, instead of a folder."
    )
    var fromStore = false
    @Option(name: .customLong("history-days"), help: "Keep check-in history this many days.")
    var historyDays = 90
    @Option(name: .long, help: "This server's name in the store (default: host name and port).")
    var replica: String?
    @Option(name: .customLong("tls-cert"), help: "Serve HTTPS with this PEM certificate chain (leaf first).")
    var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: "The PEM private key of --tls-cert.") var tlsKey: String?
    @Option(
        name: .customLong("dev-cert"),
        help: "Serve HTTPS with a development CA and certificate kept in this folder (made once).")
    var devCert: String?
    @Option(
        name: .customLong("public-url"),
        help: "The https URL devices reach this server at: the declarative channel's asset URLs start with it.")
    var publicURL: String?
    @Option(
        name: .long,
        help: "Send events to the endpoints of this events.plist instead of the catalog's own events.plist.")
    var events: String?
    @Option(
        name: .customLong("event-retry-base"),
        help: "Seconds before the first retry of a failed event delivery; each retry waits up to twice as long.")
    var eventRetryBase = 5
    @Option(
        name: .customLong("rollout-check-interval"),
        help: "With --from-store: seconds between checks of a rollout's health gate and schedule.")
    var rolloutCheckInterval: Double = 10
    @OptionGroup var limits: ReaderLimitOptions

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if devCert != nil && tlsCert != nil {
            throw ValidationError("--dev-cert makes its own pair: leave out --tls-cert")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace debug info notice warning error critical")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        guard (1...3600).contains(eventRetryBase) else {
            throw ValidationError("--event-retry-base must be from 1 to 3600 seconds")
        }
        guard (0.1...3600).contains(rolloutCheckInterval) else {
            throw ValidationError("--rollout-check-interval must be from 0.1 to 3600 seconds")
        }
        guard (1...36500).contains(historyDays) else { throw ValidationError("--history-days must be from 1 to 36500") }
        if let store, case .failure(let error) = StoreLocation.parse(store) { throw ValidationError(error.message) }
        if fromStore {
            guard let store, case .success(let location) = StoreLocation.parse(store), location != .none else {
                throw ValidationError(
                    "--from-store needs --store sqlite:PATH or postgres://… (where mdmconf publish stores generations)")
            }
            if watch { throw ValidationError("--from-store follows the store; --watch watches a folder: choose one") }
        }
    }

    /// The root command stays synchronous (an async root starts the concurrency runtime for every command and
    /// cost `update-check` about 2 ms); serving blocks this thread until the service group ends.
    func run() throws {
        _ = try BlockingTask.run {
            try await serve()
            return 0
        }
    }

    private func serve() async throws {
        let logger = {
            var logger = Logger(label: "mdmconf") { StreamLogHandler.standardError(label: $0) }
            logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
            return logger
        }()
        let eventEndpoints = try loadEvents()
        let fleet: FleetService
        let store: CatalogStore
        if fromStore {
            fleet = try await openFleet(catalogPath: nil, events: eventEndpoints, logger: logger)
            do {
                store = try await newestStoredGeneration(fleet: fleet, logger: logger)
                // A rollout under way is served from the first request on.
                if let fleetStore = fleet.store {
                    _ = await StoredGenerations(
                        catalogs: store, history: CatalogHistory(store: fleetStore),
                        loader: CatalogLoader(readerOptions: limits.readerOptions), logger: logger
                    ).sync(installed: nil, failed: nil)
                }
            } catch {
                try? await fleet.store?.close()  // a store's connections are closed before it goes away
                throw error
            }
        } else {
            do {
                store = try CatalogStore(
                    path: catalog, loader: CatalogLoader(readerOptions: limits.readerOptions), logger: logger)
            } catch {
                let findings = error.diagnostics.filter { $0.severity != .info }
                let report = DiagnosticReport(files: [FileReport(path: catalog, diagnostics: findings)])
                let sources = error.sources.mapValues { SourceText($0) }
                Console.error(
                    TextRenderer(options: RenderOptions(color: Console.stderrColorEnabled, sources: sources)).render(
                        report)
                )
                Console.error(
                    "error: \(catalog) is not a usable catalog (\(error.errors.count) errors); nothing is served\n")
                throw ExitStatus.invalidConfiguration.exitCode
            }
            fleet = try await openFleet(catalogPath: store.current.catalog.path, events: eventEndpoints, logger: logger)
        }
        let loaded = store.current.catalog
        if let problem = Self.unusableSecret(of: eventEndpoints ?? loaded.events) {
            try? await fleet.store?.close()
            Console.error("error: \(problem); nothing is served\n")
            throw ExitStatus.invalidConfiguration.exitCode
        }
        for warning in loaded.warnings where warning.severity != .info {
            logger.warning("\(warning.location?.file ?? catalog): \(warning.message) [\(warning.code)]")
        }
        if loaded.tokens == nil {
            guard ServerOptions.isLoopback(host) || insecureNoAuth else {
                try? await fleet.store?.close()
                Console.error(
                    "error: \(catalog) has no tokens.plist (development mode: no authentication); refusing to listen on \(host). Listen on 127.0.0.1, add tokens.plist, or pass --insecure-no-auth\n"
                )
                throw ExitStatus.invalidConfiguration.exitCode
            }
            logger.warning("development mode: no tokens.plist, every caller is trusted")
        }
        var options = ServerOptions(
            host: host, port: port, watch: watch, reloadOnSIGHUP: !fromStore, readerOptions: limits.readerOptions,
            fleetMaintenanceInterval: 3600)
        do {
            options.tls = try tls(logger: logger)
        } catch {
            try? await fleet.store?.close()
            Console.error("error: \(error.message); nothing is served\n")
            throw ExitStatus.invalidConfiguration.exitCode
        }
        options.reloadTLSOnSIGHUP = true
        options.eventSchedule.firstDelay = Int64(eventRetryBase)
        if let publicURL {
            let local = loaded.tokens == nil && ServerOptions.isLoopback(host)
            guard let url = URL(string: publicURL), let scheme = url.scheme, url.host?.isEmpty == false,
                scheme == "https" || (scheme == "http" && local)
            else {
                try? await fleet.store?.close()
                Console.error(
                    "error: --public-url must be an https URL (http only in development mode on loopback); nothing is served\n")
                throw ExitStatus.usage.exitCode
            }
            options.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        }
        if options.tls == nil, loaded.tokens != nil, !ServerOptions.isLoopback(host) {
            logger.warning(
                "listening on \(host) without TLS: bearer tokens and configurations travel in clear (use --tls-cert/--tls-key or --dev-cert)"
            )
        }
        if fromStore {
            options.followStoreInterval = 0.2
            options.rolloutCheckInterval = rolloutCheckInterval
        }
        let tlsLine =
            options.tls.map {
                "\($0.pair.certificatePath) (HTTP/2 and HTTP/1.1, valid until \(TLSPair.format($0.pair.notValidAfter)))"
            }
            ?? "off"
        let served = fromStore ? "generation \(store.current.generation) of \(self.store ?? "")" : catalog
        let app = MDMConfServer.buildApplication(store: store, fleet: fleet, options: options, logger: logger) {
            channel in
            let address = channel.localAddress.map { "\($0)" } ?? "\(host):\(port)"
            logger.info(
                "serving \(served)",
                metadata: [
                    "address": "\(address)", "apps": "\(loaded.apps.count)", "devices": "\(loaded.devices.count)",
                    "auth": "\(loaded.tokens == nil ? "none (development mode)" : "bearer tokens")",
                    "store": "\(fleet.store?.description ?? "none")",
                    "tls": "\(tlsLine)",
                ])
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            try? await fleet.store?.close()
            Console.error("error: cannot serve on \(host):\(port): \(error)\n")
            throw ExitStatus.invalidConfiguration.exitCode
        }
        try? await fleet.store?.close()
    }

    /// `--events FILE`'s endpoints, or nil without it; a file with errors is reported and exits 78.
    private func loadEvents() throws -> [EventEndpoint]? {
        guard let events else { return nil }
        switch CatalogLoader(readerOptions: limits.readerOptions).loadEvents(events) {
        case .success(let endpoints): return endpoints
        case .failure(let failure):
            let report = DiagnosticReport(files: [FileReport(path: events, diagnostics: failure.errors)])
            let sources = failure.sources.mapValues { SourceText($0) }
            Console.error(
                TextRenderer(options: RenderOptions(color: Console.stderrColorEnabled, sources: sources)).render(report))
            Console.error("error: \(events) is not a usable events file (\(failure.errors.count) errors); nothing is served\n")
            throw ExitStatus.invalidConfiguration.exitCode
        }
    }

    /// Why one of `endpoints` cannot sign its events now (a secret missing, empty or not `whsec_` base64), or nil.
    static func unusableSecret(of endpoints: [EventEndpoint]) -> String? {
        for endpoint in endpoints {
            if case .failure(let error) = endpoint.signer(environment: ProcessInfo.processInfo.environment) {
                return error.message
            }
        }
        return nil
    }

    /// The TLS pair of `--tls-cert/--tls-key`, or of `--dev-cert` (made when needed); nil for plain HTTP.
    private func tls(logger: Logger) throws(TLSProblem) -> ServerTLS? {
        if let devCert {
            let outcome = try DevCertificates.ensure(in: devCert)
            if outcome.createdCA {
                logger.notice("created a development CA: trust \(outcome.files.ca) on test devices (see the README)")
            }
            if outcome.issuedCertificate {
                logger.info(
                    "issued a development certificate", metadata: ["names": "\(outcome.names.joined(separator: " "))"])
            }
            return ServerTLS(try TLSPair.load(certificate: outcome.files.certificate, key: outcome.files.key))
        }
        guard let tlsCert, let tlsKey else { return nil }
        return ServerTLS(try TLSPair.load(certificate: tlsCert, key: tlsKey))
    }

    /// The store `--store` names (default: an SQLite file outside the catalog), opened and migrated; exit 78 when
    /// it cannot be used.
    private func openFleet(catalogPath: String?, events: [EventEndpoint]?, logger: Logger) async throws
        -> FleetService
    {
        let location: StoreLocation
        switch store.map(StoreLocation.parse) {
        case .success(let parsed)?: location = parsed
        case .failure(let error)?:
            Console.error("error: \(error.message)\n")
            throw ExitStatus.usage.exitCode
        case nil: location = .sqlite(path: FleetStores.defaultSQLitePath(forCatalog: catalogPath ?? catalog))
        }
        if case .sqlite(let path) = location, let catalogPath, StorePaths.isInside(path, folder: catalogPath) {
            Console.error(
                "error: the store \(path) is inside the catalog folder \(catalogPath): every check-in would change the folder that --watch and publishing read; put it elsewhere\n"
            )
            throw ExitStatus.invalidConfiguration.exitCode
        }
        do {
            let opened = try await FleetStores.open(location, logger: logger)
            if store == nil { logger.info("fleet store: \(location) (choose another with --store)") }
            return FleetService(
                store: opened, replica: replica ?? StorePaths.replicaName(port: port), historyDays: historyDays,
                events: events)
        } catch {
            Console.error(
                "error: the fleet store cannot be used: \((error as? FleetStoreError)?.message ?? "\(error)")\n")
            throw ExitStatus.invalidConfiguration.exitCode
        }
    }

    /// `--from-store`: the newest stored generation that loads (a newer one that does not is reported, and
    /// followed up by the follower); exit 78 when the store has none.
    private func newestStoredGeneration(fleet: FleetService, logger: Logger) async throws -> CatalogStore {
        guard let fleetStore = fleet.store else { throw ExitStatus.usage.exitCode }
        let history = CatalogHistory(store: fleetStore)
        let loader = CatalogLoader(readerOptions: limits.readerOptions)
        let generations: [CatalogGeneration]
        do { generations = try await history.generations(limit: 20) } catch {
            Console.error(
                "error: the fleet store cannot be read: \((error as? FleetStoreError)?.message ?? "\(error)")\n")
            throw ExitStatus.invalidConfiguration.exitCode
        }
        for generation in generations {
            guard let files = try? await history.files(of: generation.number) else { continue }
            switch loader.load(files: files) {
            case .success(let catalog):
                return CatalogStore(
                    catalog: catalog, generation: generation.number, label: "\(fleetStore.description) generation",
                    publishedAt: generation.createdAt, loader: loader, logger: logger)
            case .failure(let failure):
                logger.error(
                    "stored generation \(generation.number) does not load (\(failure.errors.count) errors); trying the one before"
                )
                for diagnostic in failure.errors { logger.error("\(diagnostic.message) [\(diagnostic.code)]") }
            }
        }
        Console.error(
            "error: \(fleetStore.description) holds no generation that loads: publish one with mdmconf publish CATALOG --store …\n"
        )
        throw ExitStatus.invalidConfiguration.exitCode
    }
}
