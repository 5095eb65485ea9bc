import ArgumentParser
import CivilTime
import Dispatch
import Fleet
import FleetStores
import Logging
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics
import UpdatePolicy

struct ReportCommand: ParsableCommand {
    static let configuration = ServerCommands.report

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, csv }

    @Option(name: .long, help: "The catalog folder the server serves.") var catalog: String
    @Option(name: .long, help: "The fleet store: sqlite:PATH or postgres://user@host:port/db.") var store: String
    @Option(name: .long, help: "Only this app.") var app: String?
    @Option(name: .long, help: "Only devices that are compliant, noncompliant or silent.")
    var status: FleetFilter.Status?
    @Option(name: .long, help: "Only devices with an app at this decision (ok, recommended, required, …).")
    var decision: Outcome?
    @Option(name: .long, help: "Judge at this instant (RFC 3339), e.g. after Friday's deadline; default: now.")
    var now: String?
    @Option(name: .long, help: "text, json or csv.") var format: Format = .text
    @OptionGroup var limits: ReaderLimitOptions

    func validate() throws {
        if let now, parsedNow(now) == nil { throw ValidationError("--now must be RFC 3339 with Z or an offset") }
        if case .failure(let error) = StoreLocation.parse(store) { throw ValidationError(error.message) }
        if case .success(.none) = StoreLocation.parse(store) { throw ValidationError("--store none has no fleet") }
    }

    private func parsedNow(_ text: String) -> Instant? {
        guard let value = PolicyDateTime(text), case .absolute(let instant) = value.kind else { return nil }
        return instant
    }

    func run() throws {
        let code = try BlockingTask.run { try await report() }
        if code != 0 { throw ExitCode(code) }
    }

    private func report() async throws -> Int32 {
        guard let loaded = CatalogFolder.load(catalog, readerOptions: limits.readerOptions) else {
            return ExitStatus.invalidConfiguration.rawValue
        }
        let logger = Logger(label: "mdmconf") { _ in SwiftLogNoOpLogHandler() }
        guard case .success(let location) = StoreLocation.parse(store) else { return ExitStatus.usage.rawValue }
        let opened: any FleetStore
        do {
            guard let store = try await FleetStores.open(location, logger: logger) else {
                return ExitStatus.usage.rawValue
            }
            opened = store
        } catch {
            Console.error(
                "error: the fleet store cannot be used: \((error as? FleetStoreError)?.message ?? "\(error)")\n")
            return ExitStatus.invalidConfiguration.rawValue
        }
        let instant = now.flatMap(parsedNow) ?? .now
        let query = FleetQuery(store: opened, evaluator: ComplianceEvaluator(catalog: loaded, now: instant))
        let filter = FleetFilter(app: app, status: status, decision: decision)
        let rows: [DeviceCompliance]
        do {
            rows = try await query.all(filter)
            try? await opened.close()
        } catch {
            try? await opened.close()
            Console.error(
                "error: the fleet store cannot be read: \((error as? FleetStoreError)?.message ?? "\(error)")\n")
            return ExitStatus.invalidConfiguration.rawValue
        }
        var summary = FleetSummary(app: app)
        for row in rows { summary.add(row) }
        switch format {
        case .json:
            let document: JSONValue = .object([
                ("generatedAt", .string(Instant.now.description)), ("now", .string(instant.description)),
                ("summary", summary.json(generation: nil, now: instant.description)),
                ("devices", .array(rows.map(\.json))),
            ])
            Console.out(document.serialized())
        case .csv:
            var text = FleetCSV.header
            for row in rows { text += FleetCSV.lines(row) }
            Console.out(text)
        case .text:
            ReportTable(rows: rows).render(Console.out(bytes:))
            Console.error(
                "\(summary.devices) devices: \(summary.compliant) compliant, \(summary.noncompliant) not compliant (judged at \(instant))\n"
            )
        }
        return summary.noncompliant == 0 ? 0 : ExitStatus.findings.rawValue
    }
}

extension FleetFilter.Status: ExpressibleByArgument {}
extension Outcome: ExpressibleByArgument {}

/// One line per device and app: what it runs, its decision, its config status and why it is not compliant.
/// Written in pieces of about 1 MiB as it is made: 100,000 devices are 44 MB of table, which as cells, lines and one
/// string took as long as judging the fleet.
struct ReportTable {
    let rows: [DeviceCompliance]

    static let header = ["DEVICE", "SEEN", "LAST CHECK-IN", "APP", "VERSION", "UPDATE", "CONFIG", "COMPLIANT"]

    /// The eight cells of one device's `index`th app line (`app` nil for a device with no apps).
    private static func cells(_ row: DeviceCompliance, _ app: AppCompliance?, first: Bool) -> [String] {
        [
            first ? row.device : "", first ? row.seen.rawValue : "",
            first ? (row.state?.lastCheckIn.description ?? "-") : "", app?.app ?? "-",
            app?.reported?.version ?? "-", app?.decision?.decision.rawValue ?? "-",
            app?.config.rawValue ?? "-", first ? (row.compliant ? "yes" : "no") : "",
        ]
    }

    /// Widths in characters; cells are ASCII but for unusual ids, whose characters are counted.
    private static func width(_ cell: String) -> Int {
        cell.utf8.allSatisfy { $0 < 0x80 } ? cell.utf8.count : cell.count
    }

    /// Calls `write` with the table and the reasons, in order, a piece at a time.
    func render(_ write: (UnsafeBufferPointer<UInt8>) -> Void) {
        var widths = Self.header.map(Self.width)
        var compliant = [Bool]()
        compliant.reserveCapacity(rows.count)
        for row in rows {
            let isCompliant = row.compliant
            compliant.append(isCompliant)
            widths[0] = max(widths[0], Self.width(row.device))
            widths[1] = max(widths[1], row.seen.rawValue.utf8.count)
            widths[2] = max(widths[2], row.state?.lastCheckIn.description.utf8.count ?? 1)
            widths[7] = max(widths[7], 3)
            if row.apps.isEmpty { for column in 3...6 { widths[column] = max(widths[column], 1) } }
            for app in row.apps {
                widths[3] = max(widths[3], Self.width(app.app))
                widths[4] = max(widths[4], app.reported.map { Self.width($0.version) } ?? 1)
                widths[5] = max(widths[5], app.decision?.decision.rawValue.utf8.count ?? 1)
                widths[6] = max(widths[6], app.config.rawValue.utf8.count)
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 << 20 + 4096)
        func flushIfFull() {
            guard bytes.count >= 1 << 20 else { return }
            bytes.withUnsafeBufferPointer(write)
            bytes.removeAll(keepingCapacity: true)
        }
        func line(_ cells: [String]) {
            var pending = 0  // spaces owed before the next non-empty cell, so no line ends in spaces
            for (index, cell) in cells.enumerated() {
                if !cell.isEmpty {
                    bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: pending))
                    bytes.append(contentsOf: cell.utf8)
                    pending = 0
                }
                if index < cells.count - 1 { pending += widths[index] - Self.width(cell) + 2 }
            }
            bytes.append(UInt8(ascii: "\n"))
            flushIfFull()
        }
        line(Self.header)
        for row in rows {
            if row.apps.isEmpty {
                line(Self.cells(row, nil, first: true))
            } else {
                for index in row.apps.indices { line(Self.cells(row, row.apps[index], first: index == 0)) }
            }
        }
        if compliant.contains(false) {
            bytes.append(contentsOf: "\nwhy not compliant:\n".utf8)
            for (row, isCompliant) in zip(rows, compliant) where !isCompliant {
                bytes.append(contentsOf: "  \(row.device): \(row.why.joined(separator: "; "))\n".utf8)
                flushIfFull()
            }
        }
        bytes.withUnsafeBufferPointer(write)
    }
}
