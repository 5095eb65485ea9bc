import Fleet
import Hummingbird
import MDMConf
import MDMDiagnostics
import PropertyList
import UpdatePolicy

/// One check-in from the request's bytes to the answer's (*Fleet state*), whoever reads the request: the route and the
/// event-loop fast path (`CheckInFastPath`) both take check-ins through it, so each answer has one implementation.
struct CheckInIntake: Sendable {
    let fleet: FleetService
    let readerOptions: PlistReaderOptions

    /// A check-in to store, with what its answer needs.
    struct Accepted: Sendable {
        let record: CheckInRecord
        let requests: [UpdateRequest]
        let state: CatalogState
        /// The apps' update decisions, in the check-in's order, when the events judged its compliance: the answer
        /// gives them.
        var decisions: [Decision?]? = nil
    }

    /// A refused check-in: its status and JSON body (the error shape), plain data so that whichever path read the
    /// request writes the answer without parsing the check-in again.
    struct Refused: HTTPResponseError, Sendable {
        let status: HTTPResponse.Status
        let body: JSONValue

        init(_ status: HTTPResponse.Status, _ code: DiagnosticCode, _ message: String) {
            self.status = status
            self.body = Answer.errorBody(code, message)
        }

        init(_ errors: CheckInErrors) {
            status = .unprocessableContent
            body = CheckInIntake.invalidBody(errors)
        }

        var response: Response { Answer.json(status, body) }

        func response(from request: Request, context: some RequestContext) throws -> Response { response }
    }

    /// The check-in in `body` from `caller`, or the refusal: 400 (not JSON, not an object), 422 (one reason per
    /// bad field), 403 (a device token naming another device), 404 (a device not in devices.plist).
    func accept(_ body: [UInt8], from caller: Caller, state: CatalogState) -> Result<Accepted, Refused> {
        let root: PlistNode
        switch MalformedRequest.json(body, options: readerOptions) {
        case .success(let node): root = node
        case .failure(let error): return .failure(Refused(.badRequest, RequestCode.badRequest, error.message))
        }
        var checkIn: CheckIn
        var requests: [UpdateRequest]
        switch CheckIn.parseWithRequests(root, cache: fleet.parseCache) {
        case .success(let parsed): (checkIn, requests) = parsed
        case .failure(let errors) where errors.malformed:
            return .failure(Refused(.badRequest, RequestCode.badRequest, "a check-in is a JSON object"))
        case .failure(let errors): return .failure(Refused(errors))
        }
        switch caller {
        case .mdm:
            return .failure(
                Refused(
                    .forbidden, RequestCode.forbidden,
                    "an MDM token reads declarations and posts DDM status, not check-ins"))
        case .device(let own):
            guard checkIn.device.isEmpty || checkIn.device == own else {
                return .failure(
                    Refused(.forbidden, RequestCode.forbidden, "a device token can only check in as its own device"))
            }
            checkIn.device = own
            // The device is the rollout id of every decision in the answer.
            for index in requests.indices { requests[index].deviceID = own }
        case .admin, .open:
            guard !checkIn.device.isEmpty else {
                // An admin token or development mode must name the device.
                return .failure(
                    Refused(CheckInErrors(reasons: [.init(field: "device", code: "missing_device")], malformed: false)))
            }
            guard state.catalog.devices[checkIn.device] != nil else {
                return .failure(
                    Refused(.notFound, RequestCode.notFound, "no device '\(checkIn.device)' in devices.plist"))
            }
        }
        // Judged against the generation the device is served.
        let state = state.serving(device: checkIn.device)
        let (record, decisions) = fleet.judged(checkIn, state: state, requests: requests)
        return .success(Accepted(record: record, requests: requests, state: state, decisions: decisions))
    }

    /// The 200's body, once `accepted` is stored: per app, its configuration status and update decision.
    func answer(_ accepted: Accepted) -> [UInt8] {
        CheckInAnswer.Decided(
            for: accepted.record, catalog: accepted.state.catalog, generation: accepted.state.generation,
            now: accepted.record.receivedAt, requests: accepted.requests, decisions: accepted.decisions
        ).jsonText()
    }

    /// The 404 of a server that keeps no fleet state (`--store none`).
    static var fleetDisabled: Response {
        Answer.error(
            .notFound, RequestCode.fleetDisabled, "this server runs with --store none: it keeps no fleet state",
            code: "fleet_disabled")
    }

    /// Stores `record` through `writer`: nil once it is committed, else the 503 (with `Retry-After`) to answer.
    static func store(_ record: CheckInRecord, with writer: CheckInWriter) async -> Response? {
        do {
            try await writer.submit(record)
            return nil
        } catch {
            var response = Answer.json(
                .serviceUnavailable, notStored(error as? FleetStoreError ?? FleetStoreError(.unavailable, "\(error)")))
            response.headers[.retryAfter] = String(writer.retryAfter)
            return response
        }
    }

    /// The 503's body when the check-in could not be stored (with `Retry-After: writer.retryAfter`).
    static func notStored(_ error: FleetStoreError) -> JSONValue {
        Answer.errorBody(
            RequestCode.storeUnavailable, "the check-in was not stored: \(error.message)", code: "store_unavailable")
    }

    /// 422 in the error shape of *Serving a catalog*, with one reason per bad field.
    static func invalid(_ errors: CheckInErrors) -> Response {
        Answer.json(.unprocessableContent, invalidBody(errors))
    }

    /// The body of `invalid(_:)`.
    static func invalidBody(_ errors: CheckInErrors) -> JSONValue {
        .object([
            (
                "error",
                .object([
                    ("code", .string("invalid_checkin")), ("mc", .string(RequestCode.invalidCheckIn.code)),
                    ("message", .string("invalid check-in: \(errors.message)")), ("diagnostics", .array([])),
                    ("reasons", errors.json),
                ])
            )
        ])
    }
}
