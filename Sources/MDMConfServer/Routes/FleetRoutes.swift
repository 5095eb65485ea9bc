import CivilTime
import DevicePolicy
import Fleet
import HTTPTypes
import Hummingbird
import MDMConf
import MDMDiagnostics
import NIOCore
import PropertyList
import UpdatePolicy

/// `POST /v1/checkin` and the admin's fleet endpoints (*Fleet state*). Answers come from the Fleet library: the
/// handlers only authorise, read parameters and write bytes.
struct FleetRoutes: Sendable {
    let catalogs: CatalogStore
    let fleet: FleetService
    let readerOptions: PlistReaderOptions

    func register(on router: Router<BasicRequestContext>) {
        router.post("/v1/checkin") { request, _ in try await checkIn(request) }
        router.get("/v1/fleet/summary") { request, _ in try await summary(request) }
        router.get("/v1/fleet/devices") { request, _ in try await devices(request) }
        router.get("/v1/fleet/devices/:id") { request, context in
            try await device(request, context.parameters.get("id"))
        }
        router.get("/v1/fleet/trend") { request, _ in try await trend(request) }
    }

    private var disabled: Response { CheckInIntake.fleetDisabled }

    // MARK: Check-in

    func checkIn(_ request: Request) async throws -> Response {
        let state = catalogs.current
        let caller: Caller = try Caller.authorize(request, catalog: state.catalog).get()
        guard let writer = fleet.writer else { return disabled }
        let body = try await Answer.body(of: request, limit: state.catalog.settings.maxBodySize).get()
        let intake = CheckInIntake(fleet: fleet, readerOptions: readerOptions)
        let accepted: CheckInIntake.Accepted = try intake.accept(body, from: caller, state: state).get()
        if let refusal = await CheckInIntake.store(accepted.record, with: writer) { return refusal }
        return Answer.bytes(.ok, intake.answer(accepted), generation: accepted.state.generation)
    }

    // MARK: Fleet (admin)

    /// The admin's view: an admin token or development mode; device tokens get 403.
    private func adminQuery(_ request: Request) -> Result<(CatalogState, FleetQuery), Refusal> {
        let state = catalogs.current
        switch Caller.authorize(request, catalog: state.catalog) {
        case .failure(let refusal): return .failure(refusal)
        case .success(.device), .success(.mdm):
            return .failure(
                Refusal(
                    response: Answer.error(
                        .forbidden, RequestCode.forbidden, "fleet state needs an admin token, not a device or MDM token"
                    )))
        case .success: break
        }
        guard let store = fleet.store else { return .failure(Refusal(response: disabled)) }
        let evaluator = state.complianceEvaluator(now: .now)
        return .success((state, FleetQuery(store: store, evaluator: evaluator)))
    }

    private func filter(_ request: Request) -> Result<FleetFilter, Refusal> {
        let parameters = request.uri.queryParameters
        var filter = FleetFilter()
        func bad(_ message: String) -> Result<FleetFilter, Refusal> {
            .failure(Refusal(response: Answer.error(.badRequest, RequestCode.badRequest, message)))
        }
        if let app = parameters.get("app") {
            guard BundleID.isWellFormed(app) else { return bad("?app= must be a bundle id") }
            filter.app = app
        }
        if let status = parameters.get("status") {
            guard let parsed = FleetFilter.Status(rawValue: status) else {
                return bad("?status= must be compliant, noncompliant or silent")
            }
            filter.status = parsed
        }
        if let generation = parameters.get("generation") {
            guard let number = Int(generation), number >= 1 else {
                return bad("?generation= must be a generation number (1 or more)")
            }
            filter.generation = number
        }
        if let decision = parameters.get("decision") {
            guard let parsed = Outcome(rawValue: decision) else {
                return bad("?decision= must be ok, recommended, required, unsupported or error")
            }
            filter.decision = parsed
        }
        return .success(filter)
    }

    private func unavailable(_ error: any Error) -> Response {
        var headers = HTTPFields()
        headers[.retryAfter] = "2"
        return Answer.error(
            .serviceUnavailable, RequestCode.storeUnavailable,
            "the fleet store cannot be read: \((error as? FleetStoreError)?.message ?? "\(error)")",
            code: "store_unavailable", headers: headers)
    }

    func summary(_ request: Request) async throws -> Response {
        let (state, query): (CatalogState, FleetQuery) = try adminQuery(request).get()
        let filter: FleetFilter = try self.filter(request).get()
        do {
            let summary = try await query.summary(filter)
            return Answer.json(
                .ok, summary.json(generation: state.generation, now: query.evaluator.now.description),
                generation: state.generation)
        } catch {
            return unavailable(error)
        }
    }

    func devices(_ request: Request) async throws -> Response {
        let (state, query): (CatalogState, FleetQuery) = try adminQuery(request).get()
        let filter: FleetFilter = try self.filter(request).get()
        let parameters = request.uri.queryParameters
        var limit = 100
        if let text = parameters.get("limit") {
            guard let number = Int(text), (1...1000).contains(number) else {
                return Answer.error(.badRequest, RequestCode.badRequest, "?limit= must be a number from 1 to 1000")
            }
            limit = number
        }
        let after = parameters.get("page")
        if let after, !CatalogDevice.isValidID(after) {
            return Answer.error(.badRequest, RequestCode.badRequest, "?page= is not a cursor from an earlier page")
        }
        let page: (rows: [DeviceCompliance], next: String?)
        do {
            page = try await query.page(filter, after: after, limit: limit)
        } catch {
            return unavailable(error)
        }
        if ContentNegotiation.prefersCSV(accept: request.headers[.accept]) {
            var text = FleetCSV.header
            for row in page.rows { text += FleetCSV.lines(row) }
            var headers = HTTPFields()
            headers[.contentType] = "text/csv; charset=utf-8; header=present"
            headers[Answer.generationField] = String(state.generation)
            if let next = page.next { headers[Answer.nextPageField] = next }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        return Answer.json(
            .ok,
            .object([
                ("generatedAt", .string(query.evaluator.now.description)),
                ("catalogGeneration", .integer(state.generation)),
                ("devices", .array(page.rows.map(\.json))), ("next", .optional(page.next)),
            ]), generation: state.generation)
    }

    func device(_ request: Request, _ id: String?) async throws -> Response {
        let (state, query): (CatalogState, FleetQuery) = try adminQuery(request).get()
        guard let id, CatalogDevice.isValidID(id) else {
            return Answer.error(.badRequest, RequestCode.badRequest, "the device id in the path is not a device id")
        }
        do {
            let stored = try await query.store.device(id)
            let row: DeviceCompliance
            if let stored {
                row = query.evaluator.evaluate(stored, cache: ParseCache())
            } else if state.catalog.devices[id] != nil {
                row = query.evaluator.neverSeen(id)
            } else {
                return Answer.error(.notFound, RequestCode.notFound, "no device '\(id)' in the store or devices.plist")
            }
            let history = try await query.store.checkIns(device: id, limit: 20)
            let checkIns: [JSONValue] = history.map { entry in
                let body: JSONValue =
                    switch MalformedRequest.json(Array(entry.body.utf8), options: readerOptions).map(CheckIn.parseStored) {
                    case .success(.success(let checkIn)): checkIn.json
                    default: .null
                    }
                return .object([
                    ("receivedAt", .string(entry.receivedAt.description)), ("replica", .string(entry.replica)),
                    ("checkin", body),
                ])
            }
            guard case .object(var members) = row.json else { return unavailable(FleetStoreError(.unavailable, "")) }
            members.append(("recentCheckins", .array(checkIns)))
            return Answer.json(.ok, .object(members), generation: state.generation)
        } catch {
            return unavailable(error)
        }
    }

    func trend(_ request: Request) async throws -> Response {
        let (state, query): (CatalogState, FleetQuery) = try adminQuery(request).get()
        let parameters = request.uri.queryParameters
        let app = parameters.get("app")
        if let app, !BundleID.isWellFormed(app) {
            return Answer.error(.badRequest, RequestCode.badRequest, "?app= must be a bundle id")
        }
        var days = 30
        if let text = parameters.get("days") {
            guard let number = Int(text), (1...FleetService.rollupDays).contains(number) else {
                return Answer.error(
                    .badRequest, RequestCode.badRequest, "?days= must be a number from 1 to \(FleetService.rollupDays)")
            }
            days = number
        }
        let now = query.evaluator.now
        let today = FleetTrend.day(of: now)
        let since = FleetTrend.day(of: now.adding(seconds: -Int64(days - 1) * 86_400))
        do {
            // Past days as stored; today live, so the answer never lags the catalog.
            var rows = try await query.store.rollups(app: app, sinceDay: since).filter { $0.day != today }
            let live = try await query.summary(FleetFilter(app: app))
            rows += FleetTrend.rows(of: live, day: today).filter { app == nil || $0.app == app }
            return Answer.json(.ok, FleetTrend.json(rows, days: days, today: today), generation: state.generation)
        } catch {
            return unavailable(error)
        }
    }
}

extension ContentNegotiation {
    /// True when `Accept` names `text/csv` with a higher quality than JSON.
    static func prefersCSV(accept: String?) -> Bool {
        guard let accept else { return false }
        var csv = 0.0
        var json = 0.0
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";")
            let type = parts[0].filter { $0 != " " && $0 != "\t" }.lowercased()
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.filter { $0 != " " }.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].lowercased() == "q" { quality = Double(pair[1]) ?? 0 }
            }
            if type == "text/csv" { csv = max(csv, quality) }
            if type == "application/json" { json = max(json, quality) }
        }
        return csv > 0 && csv > json
    }
}
