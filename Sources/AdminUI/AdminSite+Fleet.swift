import CivilTime
import Fleet
import MDMConf
import PropertyList
import UpdatePolicy

extension AdminSite {
    // MARK: Fleet

    /// Rows per fleet page.
    public static let fleetPageSize = 50

    /// The fleet page: the counts, a version chart per app, and one page of devices matching the filter, each
    /// with the reasons compliance gives.
    public func fleet(
        query: FleetQuery, filter: FleetFilter, after: String?, counts: FleetCounts, _ snapshot: CatalogSnapshot,
        chrome: AdminChrome, generations: [Int] = []
    ) async -> String {
        struct Option {
            var value: String
            var selected: Bool
        }
        struct Chart {
            var app: String
            var svg: String
        }
        struct Row {
            var device: String, compliant: String, badgeClass: String, seen: String, lastCheckIn: String
            var platform: String
            /// The channels its apps reported by (`http`, `ddm`, or both).
            var channel: String
            var why: [String]
        }
        struct Page {
            var apps: [Option]
            var statuses: [Option]
            var decisions: [Option]
            /// The two generations a rollout splits the fleet between, when one does.
            var generations: [Option]
            var hasGenerations: Bool, summary: FleetCounts.View?, charts: [Chart], rows: [Row], next: String?
            var problem: String?
        }
        var problem = counts.problem
        var rows: [Row] = []
        var next: String?
        do {
            let page = try await query.page(filter, after: after, limit: Self.fleetPageSize)
            rows = page.rows.map { row in
                Row(
                    device: row.device, compliant: row.compliant ? "yes" : "no",
                    badgeClass: row.compliant ? "yes" : "no",
                    seen: row.seen.rawValue, lastCheckIn: row.state?.lastCheckIn.description ?? "never",
                    platform: [row.state?.platform, row.state?.osVersion].compactMap { $0 }.joined(separator: " "),
                    channel: Self.channels(row), why: row.why)
            }
            if let cursor = page.next {
                var parameters = [("page", cursor)]
                if let app = filter.app { parameters.append(("app", app)) }
                if let status = filter.status { parameters.append(("status", status.rawValue)) }
                if let decision = filter.decision { parameters.append(("decision", decision.rawValue)) }
                if let generation = filter.generation { parameters.append(("generation", String(generation))) }
                next =
                    "/admin/fleet?" + parameters.map { "\($0.0)=\(FormEncoding.escape($0.1))" }.joined(separator: "&")
            }
        } catch {
            problem = "the fleet store cannot be read: \((error as? FleetStoreError)?.message ?? "\(error)")"
        }
        var charts: [Chart] = []
        if let summary = counts.summary {
            // The counts by app are made into a dictionary on each access: taken once.
            let apps = summary.apps
            for app in apps.keys.sorted() {
                guard let versions = apps[app]?.versions, !versions.isEmpty else { continue }
                let top = versions.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(12)
                let chart = BarChart(
                    title: "\(app): devices by version",
                    bars: top.map { BarChart.Bar(label: $0.key, value: $0.value) })
                charts.append(Chart(app: app, svg: chart.svg))
            }
        }
        let page = Page(
            apps: snapshot.catalog.appIDs.map { Option(value: $0, selected: $0 == filter.app) },
            statuses: FleetFilter.Status.allCases.map { Option(value: $0.rawValue, selected: $0 == filter.status) },
            decisions: Outcome.allCases.map { Option(value: $0.rawValue, selected: $0 == filter.decision) },
            generations: generations.map { Option(value: String($0), selected: $0 == filter.generation) },
            hasGenerations: !generations.isEmpty, summary: counts.summary == nil ? nil : counts.view, charts: charts,
            rows: rows, next: next,
            problem: problem)
        return render("fleet", page, chrome: chrome, title: "Fleet", nav: "fleet")
    }

    /// A device's page: its compliance per app and its recent check-ins; nil when neither the store nor the
    /// inventory knows it.
    public func device(_ id: String, query: FleetQuery, _ snapshot: CatalogSnapshot, chrome: AdminChrome) async throws
        -> String?
    {
        struct App {
            var app: String, version: String, decision: String, reasons: String, config: String, configError: String?
            /// `http` or `ddm`, with the device's states for an app a status report gave.
            var channel: String
            var compliant: String
        }
        struct CheckInRow {
            var receivedAt: String
            var replica: String
            var body: String
        }
        struct Page {
            var device: String, compliantText: String, badgeClass: String, seen: String, lastCheckIn: String?
            var why: [String], hasWhy: Bool, platform: String?, osVersion: String, model: String?, groups: String?
            var apps: [App], checkIns: [CheckInRow], hasCheckIns: Bool
        }
        let row: DeviceCompliance
        if let stored = try await query.store.device(id) {
            row = query.evaluator.evaluate(stored, cache: ParseCache())
        } else if snapshot.catalog.devices[id] != nil {
            row = query.evaluator.neverSeen(id)
        } else {
            return nil
        }
        let history = try await query.store.checkIns(device: id, limit: 20)
        let groups = snapshot.catalog.devices[id]?.groups ?? []
        let page = Page(
            device: id, compliantText: row.compliant ? "compliant" : "not compliant",
            badgeClass: row.compliant ? "yes" : "no", seen: row.seen.rawValue,
            lastCheckIn: row.state?.lastCheckIn.description, why: row.why, hasWhy: !row.why.isEmpty,
            platform: row.state?.platform, osVersion: row.state?.osVersion ?? "", model: row.state?.deviceModel,
            groups: groups.isEmpty ? nil : groups.joined(separator: ", "),
            apps: row.apps.map { app in
                App(
                    app: app.app, version: app.reported?.version ?? "not reported",
                    decision: app.decision?.decision.rawValue ?? "unreported",
                    reasons: app.decision?.reasons.map(\.code).joined(separator: ", ") ?? "",
                    config: app.config.rawValue, configError: app.reported?.configError,
                    channel: Self.channel(of: app.reported), compliant: app.compliant ? "yes" : "no")
            },
            checkIns: history.map {
                CheckInRow(receivedAt: $0.receivedAt.description, replica: $0.replica, body: $0.body)
            },
            hasCheckIns: !history.isEmpty)
        return render("device", page, chrome: chrome, title: "Device \(id)", nav: "fleet")
    }

    /// The channels a device's apps reported by, in a fixed order (`http, ddm`); `-` before any report.
    static func channels(_ row: DeviceCompliance) -> String {
        let used = Set(row.apps.compactMap { $0.reported?.delivery })
        let names = CheckIn.Delivery.allCases.filter(used.contains).map(\.rawValue)
        return names.isEmpty ? "-" : names.joined(separator: ", ")
    }

    /// An app's channel as the device page shows it: `ddm (state managed, config valid)`, `http`, or `-`.
    static func channel(of app: CheckIn.App?) -> String {
        guard let app else { return "-" }
        guard let ddm = app.ddm else { return app.delivery.rawValue }
        let states = [ddm.state.map { "state \($0)" }, ddm.configState.map { "config \($0)" }].compactMap { $0 }
        return states.isEmpty ? "ddm" : "ddm (\(states.joined(separator: ", ")))"
    }

    // MARK: History

    /// The history page: every stored generation, newest first, with who published it, why, and a rollback form
    /// for each older one.
    public func history(_ history: CatalogHistory, _ snapshot: CatalogSnapshot, chrome: AdminChrome) async -> String {
        struct Row {
            var number: Int, served: Bool, kind: String, source: Int?, author: String, createdAt: String
            var message: String, files: Int, hash: String
        }
        struct Page {
            var servingNote: String, generations: [Row], hasGenerations: Bool, problem: String?
        }
        var rows: [Row] = []
        var problem: String?
        do {
            rows = try await history.generations(limit: 200).map { generation in
                Row(
                    number: generation.number,
                    served: snapshot.followsStore && generation.number == snapshot.generation,
                    kind: generation.kind, source: generation.source, author: generation.author,
                    createdAt: generation.createdAt.description, message: generation.message, files: generation.files,
                    hash: String(generation.contentHash.prefix(12)))
            }
        } catch {
            problem = "the store cannot be read: \((error as? FleetStoreError)?.message ?? "\(error)")"
        }
        let page = Page(
            servingNote: Self.servingNote(snapshot), generations: rows, hasGenerations: !rows.isEmpty, problem: problem)
        return render("history", page, chrome: chrome, title: "History", nav: "history")
    }

    static func servingNote(_ snapshot: CatalogSnapshot) -> String {
        snapshot.followsStore
            ? "This server follows the store: it serves generation \(snapshot.generation), and a rollback here is served at once."
            : "This server serves the folder \(snapshot.source) (generation \(snapshot.generation) of this process). "
                + "The generations below are what mdmconf publish stored; servers started with --from-store serve the newest."
    }

    /// A generation and its diff against the one before it; nil when there is no such generation.
    public func generation(
        _ number: Int, history: CatalogHistory, loader: CatalogLoader, _ snapshot: CatalogSnapshot, chrome: AdminChrome
    ) async throws -> String? {
        struct Change {
            var file: String, kind: String, path: String, old: String, new: String
        }
        struct Page {
            var number: Int, kind: String, source: Int?, author: String, createdAt: String, message: String
            var hash: String, against: String, changes: [Change], hasChanges: Bool, text: String, canRollBack: Bool
        }
        guard let generation = try await history.generation(number), let files = try await history.files(of: number)
        else { return nil }
        let previous = number > 1 ? try await history.files(of: number - 1) : nil
        let diff = generations.diff(
            old: previous.map { (number - 1, $0) }, new: (number, files), loader: loader)
        var changes: [Change] = []
        for file in diff.files {
            if file.changes.isEmpty {
                changes.append(
                    Change(file: file.path, kind: file.kind.rawValue, path: "", old: "", new: file.note ?? ""))
            }
            for change in file.changes {
                changes.append(
                    Change(
                        file: file.path, kind: change.kind.rawValue, path: change.path,
                        old: ValueChange.show(change.old, change.sensitive),
                        new: ValueChange.show(change.new, change.sensitive)))
            }
        }
        let latest = try await history.latest()
        let page = Page(
            number: number, kind: generation.kind, source: generation.source, author: generation.author,
            createdAt: generation.createdAt.description, message: generation.message, hash: generation.contentHash,
            against: previous == nil ? "an empty catalog" : "generation \(number - 1)", changes: changes,
            hasChanges: !changes.isEmpty, text: diff.text,
            canRollBack: latest.map { $0.contentHash != generation.contentHash } ?? false)
        return render("generation", page, chrome: chrome, title: "Generation \(number)", nav: "history")
    }

    // MARK: Rollback

    /// What a rollback did: the new generation and the catalog to serve, or why nothing was published.
    public enum RollbackOutcome: Sendable {
        /// A new generation with the old files, and the catalog they load into.
        case published(CatalogGeneration, Catalog)
        /// The generation asked for is the latest already: nothing was published.
        case alreadyCurrent(CatalogGeneration)
        /// Why nothing was published (no such generation, or its files no longer load).
        case refused(String)
    }

    /// Publishes generation `number`'s files again as a new generation (kind `rollback`), as `mdmconf rollback`
    /// does: the generation is loaded first, and one that does not load is refused.
    public static func rollBack(
        to number: Int, history: CatalogHistory, loader: CatalogLoader, author: String, message: String,
        server: String = "admin page"
    ) async throws -> RollbackOutcome {
        if let active = try await CatalogRollouts(store: history.store).active() {
            return .refused(
                "generation \(active.generation) is being rolled out (\(active.phase.rawValue)): complete or abort it on the Rollout page first; nothing was published"
            )
        }
        guard let files = try await history.files(of: number) else {
            return .refused("generation \(number) is not in the store")
        }
        let catalog: Catalog
        switch loader.load(files: files) {
        case .success(let loaded): catalog = loaded
        case .failure(let failure):
            return .refused(
                "generation \(number) does not load (\(failure.errors.count) errors); nothing was published")
        }
        let subscriptions = EventSubscriptions(endpoints: catalog.events, server: server)
        switch try await history.publish(
            files, author: author, message: message, kind: "rollback", source: number,
            events: { subscriptions.published($0, previous: $1) })
        {
        case .published(let generation, _): return .published(generation, catalog)
        case .unchanged(let generation): return .alreadyCurrent(generation)
        }
    }

    /// The confirmation page of a rollback (with `done` nil), or its result.
    public func rollback(
        _ number: Int, history: CatalogHistory, loader: CatalogLoader, done: String?, problem: String?,
        _ snapshot: CatalogSnapshot, chrome: AdminChrome
    ) async throws -> String? {
        struct Page {
            var number: Int, next: Int, message: String, author: String, createdAt: String, effect: String, text: String
            var done: String?, problem: String?
        }
        guard let generation = try await history.generation(number), let files = try await history.files(of: number)
        else { return nil }
        let latest = try await history.latest()
        var text = ""
        if done == nil, let latest {
            let current = try await history.files(of: latest.number) ?? CatalogFiles()
            text =
                "against generation \(latest.number), the newest stored:\n"
                + generations.diff(old: (latest.number, current), new: (number, files), loader: loader).text
        }
        let page = Page(
            number: number, next: (latest?.number ?? 0) + 1, message: generation.message, author: generation.author,
            createdAt: generation.createdAt.description,
            effect: snapshot.followsStore
                ? "This server follows the store and serves it at once; every replica that follows the store picks it up."
                : "Replicas started with --from-store serve it; this server keeps serving the folder \(snapshot.source).",
            text: text, done: done, problem: problem)
        return render("rollback", page, chrome: chrome, title: "Roll back", nav: "history")
    }
}
