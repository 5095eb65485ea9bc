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
            Console.out(ReportTable(rows: rows).render())
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
struct ReportTable {
    let rows: [DeviceCompliance]

    func render() -> String {
        var lines: [[String]] = [
            ["DEVICE", "SEEN", "LAST CHECK-IN", "APP", "VERSION", "UPDATE", "CONFIG", "COMPLIANT"]
        ]
        var notes: [String] = []
        for row in rows {
            let apps: [AppCompliance?] = row.apps.isEmpty ? [nil] : row.apps
            for (index, app) in apps.enumerated() {
                lines.append([
                    index == 0 ? row.device : "", index == 0 ? row.seen.rawValue : "",
                    index == 0 ? (row.state?.lastCheckIn.description ?? "-") : "", app?.app ?? "-",
                    app?.reported?.version ?? "-", app?.decision?.decision.rawValue ?? "-",
                    app?.config.rawValue ?? "-", index == 0 ? (row.compliant ? "yes" : "no") : "",
                ])
            }
            if !row.compliant { notes.append("\(row.device): " + row.why.joined(separator: "; ")) }
        }
        // Widths in characters; cells are ASCII but for unusual ids, whose characters are counted.
        func width(_ cell: String) -> Int { cell.utf8.allSatisfy { $0 < 0x80 } ? cell.utf8.count : cell.count }
        var widths = [Int](repeating: 0, count: lines[0].count)
        for line in lines { for (index, cell) in line.enumerated() { widths[index] = max(widths[index], width(cell)) } }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines.count * (widths.reduce(0, +) + 2 * widths.count))
        for line in lines {
            var pending = 0  // spaces owed before the next non-empty cell, so no line ends in spaces
            for (index, cell) in line.enumerated() {
                if !cell.isEmpty {
                    bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: pending))
                    bytes.append(contentsOf: cell.utf8)
                    pending = 0
                }
                if index < line.count - 1 { pending += widths[index] - width(cell) + 2 }
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        var out = String(decoding: bytes, as: UTF8.self)
        if !notes.isEmpty {
            out += "\nwhy not compliant:\n"
            for note in notes { out += "  \(note)\n" }
        }
        return out
    }
}
