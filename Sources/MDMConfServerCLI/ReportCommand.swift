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
/// string took about 0.6 s of CPU.
struct ReportTable {
    let rows: [DeviceCompliance]

    static let header = ["DEVICE", "SEEN", "LAST CHECK-IN", "APP", "VERSION", "UPDATE", "CONFIG", "COMPLIANT"]

    /// Widths in characters; cells are ASCII but for unusual ids, whose characters are counted.
    private static func width(_ cell: String) -> Int {
        cell.utf8.allSatisfy { $0 < 0x80 } ? cell.utf8.count : cell.count
    }

    /// Calls `write` with the table and the reasons, in order, a piece at a time.
    func render(_ write: (UnsafeBufferPointer<UInt8>) -> Void) {
        var widths = Self.header.map(Self.width)
        var compliant: [Bool] = []
        compliant.reserveCapacity(rows.count)
        var checkIns: [String] = []
        checkIns.reserveCapacity(rows.count)
        for row in rows {
            compliant.append(row.compliant)
            checkIns.append(row.state?.lastCheckIn.description ?? "-")
            widths[0] = max(widths[0], Self.width(row.device))
            widths[1] = max(widths[1], row.seen.rawValue.utf8.count)
            widths[2] = max(widths[2], Self.width(checkIns[checkIns.count - 1]))
            widths[7] = max(widths[7], 3)
            if row.apps.isEmpty { for column in 3...6 { widths[column] = max(widths[column], 1) } }
            for index in row.apps.indices {
                widths[3] = max(widths[3], Self.width(row.apps[index].app))
                widths[4] = max(widths[4], row.apps[index].reported.map { Self.width($0.version) } ?? 1)
                widths[5] = max(widths[5], row.apps[index].decision?.decision.rawValue.utf8.count ?? 1)
                widths[6] = max(widths[6], row.apps[index].config.rawValue.utf8.count)
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 << 20 + 4096)
        var pending = 0  // spaces owed before the next non-empty cell, so no line ends in spaces
        func cell(_ text: String, _ column: Int) {
            if !text.isEmpty {
                bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: pending))
                bytes.append(contentsOf: text.utf8)
                pending = 0
            }
            if column < widths.count - 1 { pending += widths[column] - Self.width(text) + 2 }
        }
        func endLine() {
            bytes.append(UInt8(ascii: "\n"))
            pending = 0
            guard bytes.count >= 1 << 20 else { return }
            bytes.withUnsafeBufferPointer(write)
            bytes.removeAll(keepingCapacity: true)
        }
        for (column, title) in Self.header.enumerated() { cell(title, column) }
        endLine()
        for (index, row) in rows.enumerated() {
            cell(row.device, 0)
            cell(row.seen.rawValue, 1)
            cell(checkIns[index], 2)
            if row.apps.isEmpty {
                for column in 3...6 { cell("-", column) }
            }
            for app in row.apps.indices {
                if app > 0 {
                    endLine()
                    for column in 0...2 { cell("", column) }
                }
                cell(row.apps[app].app, 3)
                cell(row.apps[app].reported?.version ?? "-", 4)
                cell(row.apps[app].decision?.decision.rawValue ?? "-", 5)
                cell(row.apps[app].config.rawValue, 6)
                if app == 0 { cell(compliant[index] ? "yes" : "no", 7) }
            }
            if row.apps.isEmpty { cell(compliant[index] ? "yes" : "no", 7) }
            endLine()
        }
        if compliant.contains(false) {
            bytes.append(contentsOf: "\nwhy not compliant:\n".utf8)
            for (row, isCompliant) in zip(rows, compliant) where !isCompliant {
                bytes.append(contentsOf: "  \(row.device): \(row.why.joined(separator: "; "))".utf8)
                endLine()
            }
        }
        bytes.withUnsafeBufferPointer(write)
    }
}
