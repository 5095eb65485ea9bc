import ArgumentParser
import CivilTime
import Dispatch
import Fleet
import FleetStores
import Foundation
import Logging
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics
import UpdatePolicy

struct ReportCommand: ParsableCommand {
    static let configuration = ServerCommands.report

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, csv }

    @Option(name: .long, help: "The catalog folder the server serves.") var catalog: String?
    @Option(
        name: .long,
        help:
            "Instead of --catalog: the devices served this stored generation, judged against it (during a rollout, its devices or the others)."
    )
    var generation: Int?
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
        guard (catalog == nil) != (generation == nil) else {
            throw ValidationError(
                "give the catalog folder (--catalog) or a stored generation (--generation), one of them")
        }
        if let now, parsedNow(now) == nil { throw ValidationError("--now must be RFC 3339 with Z or an offset") }
        if case .failure(let error) = StoreLocation.parse(store) { throw ValidationError(error.message) }
        if case .success(.none) = StoreLocation.parse(store) { throw ValidationError("--store none has no fleet") }
    }

    /// The judge of stored generation `number`'s devices: when a rollout splits the fleet with it (it is rolled
    /// out, or it is what the others keep), the rollout's two catalogs, each judging its own devices.
    static func evaluator(of number: Int, in store: any FleetStore, now: Instant) async throws -> ComplianceEvaluator? {
        let history = CatalogHistory(store: store)
        let rollouts = CatalogRollouts(store: store)
        func load(_ number: Int) async throws -> Catalog? {
            try await history.files(of: number).flatMap(StoredCatalogs.load)
        }
        var rollout = try await rollouts.rollout(of: number)
        if rollout?.phase.splitsTheFleet != true {
            rollout = try await rollouts.active().flatMap { $0.base == number ? $0 : nil }
        }
        if let rollout, rollout.phase.splitsTheFleet {
            guard let base = try await load(rollout.base), let new = try await load(rollout.generation) else {
                return nil
            }
            return ComplianceEvaluator(catalog: base, now: now, generation: rollout.base, rollout: (rollout, new))
        }
        return try await load(number).map { ComplianceEvaluator(catalog: $0, now: now, generation: number) }
    }

    private func parsedNow(_ text: String) -> Instant? {
        guard let value = PolicyDateTime(text), case .absolute(let instant) = value.kind else { return nil }
        return instant
    }

    func run() throws {
        HeapGrowth.inLargeSteps()
        let code = try BlockingTask.run { try await report() }
        if code != 0 { throw ExitCode(code) }
    }

    private func report() async throws -> Int32 {
        let logger = Logger(label: "mdmconf") { _ in SwiftLogNoOpLogHandler() }
        guard case .success(let location) = StoreLocation.parse(store) else { return ExitStatus.usage.rawValue }
        typealias Opening = Task<(store: any FleetStore, readAhead: FleetReadAhead)?, any Error>
        func open() -> Opening {
            Task {
                guard let store = try await FleetStores.open(location, logger: logger) else { return nil }
                return (store, FleetReadAhead(store: store))
            }
        }
        // The store is opened, and its devices read, while the catalog loads: reading needs no catalog, and the
        // load leaves a core idle part of the time. A SQLite file that is not there yet is made by opening it, so
        // it waits for the catalog: a catalog that does not load leaves no store behind.
        let early: Opening?
        if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            early = nil
        } else {
            early = open()
        }
        var loaded: Catalog?
        if let catalog {
            guard let folder = CatalogFolder.load(catalog, readerOptions: limits.readerOptions) else {
                if let (store, readAhead) = try? await early?.value {
                    readAhead.cancel()
                    try? await store.close()
                }
                return ExitStatus.invalidConfiguration.rawValue
            }
            loaded = folder
        }
        let opening = early ?? open()
        let opened: any FleetStore
        let readAhead: FleetReadAhead
        do {
            guard let (store, reads) = try await opening.value else { return ExitStatus.usage.rawValue }
            (opened, readAhead) = (store, reads)
        } catch {
            Console.error(
                "error: the fleet store cannot be used: \((error as? FleetStoreError)?.message ?? "\(error)")\n")
            return ExitStatus.invalidConfiguration.rawValue
        }
        let instant = now.flatMap(parsedNow) ?? .now
        let evaluator: ComplianceEvaluator
        if let loaded {
            evaluator = ComplianceEvaluator(catalog: loaded, now: instant)
        } else if let generation {
            do {
                guard let judged = try await Self.evaluator(of: generation, in: opened, now: instant) else {
                    readAhead.cancel()
                    try? await opened.close()
                    Console.error(
                        "error: generation \(generation) is not in the store, or does not load (see mdmconf history)\n")
                    return ExitStatus.invalidConfiguration.rawValue
                }
                evaluator = judged
            } catch {
                readAhead.cancel()
                try? await opened.close()
                Console.error("error: the fleet store failed: \((error as? FleetStoreError)?.message ?? "\(error)")\n")
                return ExitStatus.invalidConfiguration.rawValue
            }
        } else {
            return ExitStatus.usage.rawValue
        }
        let query = FleetQuery(store: opened, evaluator: evaluator, readAhead: readAhead)
        let filter = FleetFilter(app: app, status: status, decision: decision, generation: generation)
        /// The devices, each made into what `format` prints as it is judged, and their counts; nil after
        /// printing why the store could not be read.
        func read<Row: Sendable>(_ make: @escaping @Sendable (DeviceCompliance) -> Row) async -> (
            rows: [Row], summary: FleetSummary
        )? {
            do {
                let read = try await query.allWithSummary(filter, as: make)
                try? await opened.close()
                return read
            } catch {
                try? await opened.close()
                Console.error(
                    "error: the fleet store cannot be read: \((error as? FleetStoreError)?.message ?? "\(error)")\n")
                return nil
            }
        }
        let summary: FleetSummary
        switch format {
        case .json:
            guard let (rows, counted) = await read({ $0 }) else { return ExitStatus.invalidConfiguration.rawValue }
            summary = counted
            ReportDocument(
                head: [
                    ("generatedAt", .string(Instant.now.description)), ("now", .string(instant.description)),
                    ("summary", summary.json(generation: nil, now: instant.description)),
                ], rows: rows
            ).render(Console.out(bytes:))
        case .csv:
            guard let (rows, counted) = await read({ $0 }) else { return ExitStatus.invalidConfiguration.rawValue }
            summary = counted
            Console.out(FleetCSV.header)
            ParallelMap.inBlocks(
                of: rows.count, size: 4_096, { range in range.map { FleetCSV.lines(rows[$0]) }.joined() }
            ) {
                Console.out($0)
            }
        case .text:
            // Each device kept as its table cells, not its whole compliance (`ReportTable.Row`).
            guard let (rows, counted) = await read(ReportTable.Row.init) else {
                return ExitStatus.invalidConfiguration.rawValue
            }
            summary = counted
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
/// Rows are laid out in blocks on every core (`ParallelMap.inBlocks`) and written as they are made: 100,000 devices
/// are 34 MB of table.
struct ReportTable: Sendable {
    /// A device as the table shows it: its cells, and why it is not compliant. Made as each device is judged, so a
    /// report keeps these instead of every device's whole compliance (its stored state and decisions): over
    /// 100,000 devices × 3 apps the process peaked at 130 MB instead of 308 MB, and the kernel cleared 30,000 fresh
    /// pages for it instead of 81,000 (on PostgreSQL 0.89–0.98 s against 0.97–1.03 s, alternating runs).
    struct Row: Sendable {
        struct App: Sendable {
            var app: String
            var version: String?
            var decision: Outcome?
            var config: ConfigStatus
            /// `http` or `ddm`; nil when the app was not reported.
            var channel: CheckIn.Delivery?
        }

        var device: String
        var seen: SeenStatus
        var lastCheckIn: Instant?
        var apps: [App]
        var compliant: Bool
        /// `DeviceCompliance.why` joined; empty when compliant.
        var why: String

        init(_ row: DeviceCompliance) {
            device = row.device
            seen = row.seen
            lastCheckIn = row.state?.lastCheckIn
            apps = row.apps.indices.map { index in
                App(
                    app: row.apps[index].app, version: row.apps[index].reported?.version,
                    decision: row.apps[index].decision?.decision, config: row.apps[index].config,
                    channel: row.apps[index].reported?.delivery)
            }
            compliant = row.compliant
            why = compliant ? "" : row.why.joined(separator: "; ")
        }
    }

    let rows: [Row]

    static let header = [
        "DEVICE", "SEEN", "LAST CHECK-IN", "APP", "VERSION", "UPDATE", "CONFIG", "CHANNEL", "COMPLIANT",
    ]
    /// Rows laid out by one task.
    private static let blockRows = 2_048

    /// Widths in characters; cells are ASCII but for unusual ids, whose characters are counted. The bytes are
    /// checked as one buffer: through `utf8.allSatisfy` the check was a fifth of laying out a report's table
    /// (callgrind, 2026-11-27).
    private static func width(_ cell: String) -> Int {
        // Read in place: a mutable copy for `withUTF8` retains the text, and the app ids of every row are one string
        // shared by the threads laying the table out, whose count they would contend for.
        let ascii = cell.utf8.withContiguousStorageIfAvailable { bytes in bytes.reduce(UInt8(0)) { $0 | $1 } < 0x80 }
        return (ascii ?? cell.utf8.allSatisfy({ $0 < 0x80 })) ? cell.utf8.count : cell.count
    }

    private static func checkIn(_ row: Row) -> String { row.lastCheckIn?.description ?? "-" }

    /// Calls `write` with the table and the reasons, in order, a piece at a time.
    func render(_ write: (UnsafeBufferPointer<UInt8>) -> Void) {
        var widths = Self.header.map(Self.width)
        ParallelMap.inBlocks(of: rows.count, size: Self.blockRows, widths(of:)) { blockWidths in
            for column in widths.indices { widths[column] = max(widths[column], blockWidths[column]) }
        }
        var header = Layout(widths: widths, capacity: 256)
        for (column, title) in Self.header.enumerated() { header.cell(title, column) }
        header.endLine()
        header.bytes.withBytes(write)
        var reasons: [[UInt8]] = []
        let final = widths
        ParallelMap.inBlocks(of: rows.count, size: Self.blockRows, { lay(out: $0, final) }) { lines, why in
            lines.withBytes(write)
            if !why.isEmpty { reasons.append(why) }
        }
        guard !reasons.isEmpty else { return }
        Array("\nwhy not compliant:\n".utf8).withUnsafeBufferPointer(write)
        for why in reasons { why.withUnsafeBufferPointer(write) }
    }

    private func widths(of block: Range<Int>) -> [Int] {
        var widths = [Int](repeating: 0, count: Self.header.count)
        for index in block {
            // Each row read in place (`rows[index]`): a copy of a row is reference counts, on two cores.
            widths[0] = max(widths[0], Self.width(rows[index].device))
            widths[1] = max(widths[1], rows[index].seen.rawValue.utf8.count)
            widths[2] = max(widths[2], Self.width(Self.checkIn(rows[index])))
            widths[8] = max(widths[8], 3)
            if rows[index].apps.isEmpty { for column in 3...7 { widths[column] = max(widths[column], 1) } }
            for app in rows[index].apps.indices {
                widths[3] = max(widths[3], Self.width(rows[index].apps[app].app))
                widths[4] = max(widths[4], rows[index].apps[app].version.map(Self.width) ?? 1)
                widths[5] = max(widths[5], rows[index].apps[app].decision?.rawValue.utf8.count ?? 1)
                widths[6] = max(widths[6], rows[index].apps[app].config.rawValue.utf8.count)
                widths[7] = max(widths[7], rows[index].apps[app].channel?.rawValue.utf8.count ?? 1)
            }
        }
        return widths
    }

    /// The table lines of the rows in `block`, and the reasons of those not compliant.
    private func lay(out block: Range<Int>, _ widths: [Int]) -> (GrowingBytes, [UInt8]) {
        var lines = Layout(widths: widths, capacity: block.count * 3 * 120)
        var why: [UInt8] = []
        for index in block {
            let compliant = rows[index].compliant
            lines.cell(rows[index].device, 0)
            lines.cell(rows[index].seen.rawValue, 1)
            lines.cell(Self.checkIn(rows[index]), 2)
            if rows[index].apps.isEmpty {
                for column in 3...7 { lines.cell("-", column) }
                lines.cell(compliant ? "yes" : "no", 8)
            }
            for app in rows[index].apps.indices {
                if app > 0 {
                    lines.endLine()
                    for column in 0...2 { lines.cell("", column) }
                }
                lines.cell(rows[index].apps[app].app, 3)
                lines.cell(rows[index].apps[app].version ?? "-", 4)
                lines.cell(rows[index].apps[app].decision?.rawValue ?? "-", 5)
                lines.cell(rows[index].apps[app].config.rawValue, 6)
                lines.cell(rows[index].apps[app].channel?.rawValue ?? "-", 7)
                if app == 0 { lines.cell(compliant ? "yes" : "no", 8) }
            }
            lines.endLine()
            if !compliant {
                why.append(contentsOf: "  \(rows[index].device): \(rows[index].why)\n".utf8)
            }
        }
        return (lines.bytes, why)
    }

    /// Lines of cells padded to the columns' widths.
    private struct Layout {
        let widths: [Int]
        /// The lines laid out. Appending to an array checked its storage (and that it was not shared) on every
        /// cell: a quarter of the samples laying a table out (perf, 2026-11-29).
        let bytes: GrowingBytes
        /// Spaces owed before the next non-empty cell, so no line ends in spaces.
        private var pending = 0

        init(widths: [Int], capacity: Int) {
            self.widths = widths
            bytes = GrowingBytes(capacity: capacity)
        }

        mutating func cell(_ text: String, _ column: Int) {
            if !text.isEmpty {
                bytes.appendSpaces(pending)
                // In place, not through a mutable copy (see `width(_:)`).
                if text.utf8.withContiguousStorageIfAvailable({ bytes.append($0) }) == nil {
                    for byte in text.utf8 { bytes.append(byte) }
                }
                pending = 0
            }
            if column < widths.count - 1 { pending += widths[column] - ReportTable.width(text) + 2 }
        }

        mutating func endLine() {
            bytes.append(UInt8(ascii: "\n"))
            pending = 0
        }
    }
}

/// `report --format json`: `{<head members>, "devices": [<device document>…]}`, pretty-printed exactly as
/// `JSONValue.serialized()` would print the whole, but with the device documents written in blocks on every core
/// and a batch of blocks at a time (as one value, 100,000 devices took 4.4 s and 1.4 GB).
struct ReportDocument: Sendable {
    let head: [(String, JSONValue)]
    let rows: [DeviceCompliance]

    func render(_ write: (UnsafeBufferPointer<UInt8>) -> Void) {
        var out = Array("{\n".utf8)
        for (key, value) in head {
            out.append(contentsOf: "  ".utf8)
            JSONValue.appendQuoted(key, to: &out)
            out.append(contentsOf: ": ".utf8)
            value.write(into: &out, pretty: true, indent: 1)
            out.append(contentsOf: ",\n".utf8)
        }
        out.append(contentsOf: "  \"devices\": ".utf8)
        guard !rows.isEmpty else {
            out.append(contentsOf: "[]\n}\n".utf8)
            out.withUnsafeBufferPointer(write)
            return
        }
        out.append(contentsOf: "[\n".utf8)
        out.withUnsafeBufferPointer(write)
        let rows = self.rows
        // Each block is written into a buffer taken from `spare` and handed back once written out: the same few
        // buffers (a batch's worth) carry the whole document, where a new array per block (3 MB) took the page
        // faults of its fresh memory, its growth's copies, and one copy more into the array.
        let spare = Locked<[GrowingBytes]>([])
        ParallelMap.inBlocks(
            of: rows.count, size: 1_024,
            { block -> GrowingBytes in
                let out = spare.withLock { $0.popLast() } ?? GrowingBytes(capacity: 4 << 20)
                out.removeAll()
                var text = JSONText(into: out, indent: 2)
                for index in block {
                    text.raw("    ")
                    rows[index].write(to: &text)
                    text.raw(index == rows.count - 1 ? "\n" : ",\n")
                }
                return out
            }
        ) { out in
            out.withBytes(write)
            spare.withLock { $0.append(out) }
        }
        Array("  ]\n}\n".utf8).withUnsafeBufferPointer(write)
    }
}
