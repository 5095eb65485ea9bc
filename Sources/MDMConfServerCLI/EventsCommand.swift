import ArgumentParser
import AsyncHTTPClient
import Fleet
import Foundation
import MDMConf
import MDMConfCommandSupport
import MDMConfServer
import MDMDiagnostics
import WebhookEvents

/// `mdmconf events list|retry|test`: the outbox of the events sent to webhook endpoints.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ServerCommands.events.commandName, abstract: ServerCommands.events.abstract,
        discussion: ServerCommands.events.discussion, subcommands: [List.self, Retry.self, Test.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Recent deliveries, newest first.")

        @Option(name: .long, help: "The fleet store: sqlite:PATH or postgres://user@host:port/db.") var store: String
        @Option(name: .long, help: "Only this endpoint's deliveries.") var endpoint: String?
        @Option(name: .long, help: "Only deliveries in this state: pending, delivered, failed or disabled.")
        var state: String?
        @Option(name: .long, help: "At most this many.") var limit = 50
        @Option(name: .long, help: "text or json.") var format: HistoryCommand.Format = .text

        func validate() throws {
            if let state, OutboxDelivery.State(rawValue: state) == nil {
                throw ValidationError("--state must be pending, delivered, failed or disabled")
            }
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 10000") }
        }

        func run() throws {
            let code = try BlockingTask.run {
                try await StoredCatalogs.withStore(store) { history in
                    let outbox = EventOutbox(store: history.store)
                    let rows = try await outbox.list(
                        endpoint: endpoint, state: state.flatMap(OutboxDelivery.State.init), limit: limit)
                    let disabled = try await outbox.disabledEndpoints()
                    let counts = try await outbox.counts()
                    if format == .json {
                        Console.out(
                            JSONValue.object([
                                (
                                    "counts",
                                    .object(
                                        counts.keys.sorted().map { endpoint in
                                            (
                                                endpoint,
                                                .object(
                                                    OutboxDelivery.State.allCases.map {
                                                        ($0.rawValue, .integer(counts[endpoint]?[$0] ?? 0))
                                                    })
                                            )
                                        })
                                ),
                                ("deliveries", .array(rows.map(EventsCommand.json))),
                                (
                                    "disabledEndpoints",
                                    .array(disabled.keys.sorted().map { JSONValue.string($0) })
                                ),
                            ]).serialized())
                    } else {
                        for endpoint in counts.keys.sorted() {
                            let states = OutboxDelivery.State.allCases.map {
                                "\(counts[endpoint]?[$0] ?? 0) \($0.rawValue)"
                            }
                            Console.out("\(endpoint): \(states.joined(separator: ", "))\n")
                        }
                        Console.out(EventsCommand.table(rows))
                        for (name, since) in disabled.sorted(by: { $0.key < $1.key }) {
                            Console.out(
                                "endpoint \(name) is disabled since \(since) (it answered 410 Gone); mdmconf events retry --endpoint \(name) enables it\n"
                            )
                        }
                    }
                    return 0
                }
            }
            if code != 0 { throw ExitCode(code) }
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send failed and disabled deliveries again (and enable their endpoints).")

        @Option(name: .long, help: "The fleet store: sqlite:PATH or postgres://user@host:port/db.") var store: String
        @Option(name: .long, help: "Only this endpoint's deliveries.") var endpoint: String?

        func run() throws {
            let code = try BlockingTask.run {
                try await StoredCatalogs.withStore(store) { history in
                    let count = try await EventOutbox(store: history.store).retry(endpoint: endpoint, now: .now)
                    Console.out("\(count) deliveries will be sent again by the server's dispatcher\n")
                    return 0
                }
            }
            if code != 0 { throw ExitCode(code) }
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign and send a test event to one endpoint now, and show its answer.")

        @Argument(help: "The endpoint's name in events.plist.") var endpoint: String
        @Option(
            name: .long, help: "The events.plist to read the endpoint from (default: the store's newest generation).")
        var events: String?
        @Option(name: .long, help: "The fleet store (for the newest generation's events.plist).") var store: String?

        func validate() throws {
            if events == nil && store == nil { throw ValidationError("give --events FILE or --store") }
        }

        func run() throws {
            let code = try BlockingTask.run { try await test() }
            if code != 0 { throw ExitCode(code) }
        }

        private func endpoints() async throws -> [EventEndpoint]? {
            if let events {
                switch CatalogLoader().loadEvents(events) {
                case .success(let endpoints): return endpoints
                case .failure(let failure):
                    for error in failure.errors {
                        Console.error("\(error.location?.file ?? events): error: \(error.message)\n")
                    }
                    return nil
                }
            }
            var found: [EventEndpoint]?
            _ = try await StoredCatalogs.withStore(store ?? "") { history in
                guard let newest = try await history.latest(), let files = try await history.files(of: newest.number),
                    let catalog = StoredCatalogs.load(files)
                else {
                    Console.error("error: the store holds no generation that loads\n")
                    return ExitStatus.invalidConfiguration.rawValue
                }
                found = catalog.events
                return 0
            }
            return found
        }

        private func test() async throws -> Int32 {
            guard let endpoints = try await endpoints() else { return ExitStatus.invalidConfiguration.rawValue }
            guard let target = endpoints.first(where: { $0.name == endpoint }) else {
                Console.error(
                    "error: no endpoint '\(endpoint)' (the endpoints are: \(endpoints.map(\.name).joined(separator: ", ")))\n"
                )
                return ExitStatus.invalidConfiguration.rawValue
            }
            let signer: WebhookSignature
            switch target.signer(environment: ProcessInfo.processInfo.environment) {
            case .failure(let error):
                Console.error("error: \(error.message)\n")
                return ExitStatus.invalidConfiguration.rawValue
            case .success(let made): signer = made
            }
            let event = CloudEvent(
                source: CloudEvent.source(server: StorePaths.hostName), type: .test, time: .now, subject: target.name,
                data: .object([("message", .string("a test event from mdmconf events test"))]))
            switch await WebhookPost.send(
                event.body, id: event.id, to: target.url, signer: signer, client: HTTPClient.shared, timeout: 15)
            {
            case .success(let status):
                Console.out("\(target.name) answered \(status) to test event \(event.id)\n")
                return (200..<300).contains(status) ? 0 : 1
            case .failure(let error):
                Console.out("\(target.name) did not answer test event \(event.id): \(error)\n")
                return 1
            }
        }
    }

    static func json(_ row: OutboxDelivery) -> JSONValue {
        .object([
            ("id", .integer(row.id)), ("event", .string(row.event.eventID)), ("endpoint", .string(row.event.endpoint)),
            ("type", .string(row.event.type)), ("subject", .string(row.event.subject)),
            ("createdAt", .string(row.event.createdAt.description)), ("state", .string(row.state.rawValue)),
            ("attempts", .integer(row.attempts)), ("nextAttempt", .string(row.nextAttempt.description)),
            ("lastStatus", .optional(row.lastStatus)), ("lastError", .optional(row.lastError)),
            ("deliveredAt", .optional(row.deliveredAt?.description)),
        ])
    }

    static func table(_ rows: [OutboxDelivery]) -> String {
        var lines = [["ID", "CREATED", "ENDPOINT", "TYPE", "SUBJECT", "STATE", "ATTEMPTS", "LAST"]]
        for row in rows {
            lines.append([
                String(row.id), row.event.createdAt.description, row.event.endpoint, row.event.type, row.event.subject,
                row.state.rawValue, String(row.attempts),
                row.lastStatus.map(String.init) ?? row.lastError ?? "",
            ])
        }
        return StoredCatalogs.columns(lines)
    }
}
