import CivilTime
import ConfigSchema
import DevicePolicy
import Fleet
import Hummingbird
import MDMConf
import MDMDiagnostics
import NIOCore
import PropertyList
import UpdatePolicy

/// The endpoints of *Serving a catalog*. Every handler reads the catalog state once, so one request never sees two
/// catalogs.
struct Routes: Sendable {
    let store: CatalogStore
    let fleet: FleetService
    let readerOptions: PlistReaderOptions

    func register(on router: Router<BasicRequestContext>) {
        router.get("/v1/apps/:bundleId/config") { request, context in try config(request, context) }
        router.get("/v1/apps/:bundleId/schema") { request, context in try schema(request, context) }
        router.post("/v1/update-check") { request, context in try await updateCheck(request, context) }
        router.get("/v1/update-check") { request, context in try updateCheck(query: request) }
        router.post("/v1/policy/evaluate") { request, context in try await evaluate(request, context) }
        router.post("/v1/validate") { request, context in try await validateUpload(request, context) }
        router.get("/healthz") { _, _ in Answer.json(.ok, .object([("status", .string("ok"))])) }
        router.get("/openapi.json") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.bytes)))
        }
        router.get("/readyz") { _, _ in await ready() }
        router.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: ServerMetrics.exposition())))
        }
    }

    // MARK: Configurations and schemas

    func config(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let state = store.current
        let outcome = ConfigLookup.resolve(
            bundleID: context.parameters.get("bundleId"), device: request.uri.queryParameters.get("device"),
            platform: request.uri.queryParameters.get("platform"), authorization: request.headers[.authorization],
            accept: request.headers[.accept],
            ifNoneMatch: request.headers[.ifNoneMatch], state: state)
        switch outcome {
        case .refuse(let refusal): throw refusal
        case .serve(let served):
            let body = served.notModified ? ByteBuffer() : ByteBuffer(bytes: served.representation.bytes)
            return Response(status: served.status, headers: served.headers(), body: .init(byteBuffer: body))
        }
    }

    func schema(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let state = store.current
        _ = try Caller.authorize(request, catalog: state.catalog).get()
        guard let id = context.parameters.get("bundleId"), BundleID.isWellFormed(id) else {
            return Answer.error(.badRequest, RequestCode.badRequest, "the app id in the path is not a bundle id")
        }
        guard let app = state.catalog.apps[id] else {
            return Answer.error(.notFound, RequestCode.notFound, "no app '\(id)' in the catalog")
        }
        return Answer.bytes(.ok, app.schemaJSON, generation: state.generation)
    }

    /// The body of a request from any caller with a valid token (or in development mode), within the limit.
    private func authorizedBody(of request: Request, state: CatalogState) async -> Result<[UInt8], Refusal> {
        if case .failure(let refusal) = Caller.authorize(request, catalog: state.catalog) { return .failure(refusal) }
        return await Answer.body(of: request, limit: state.catalog.settings.maxBodySize)
    }

    // MARK: Update checks

    func updateCheck(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let state = store.current
        let body = try await authorizedBody(of: request, state: state).get()
        switch body.withUnsafeBytes({ UpdateAnswer.request($0, options: readerOptions) }) {
        case .success(let parsed): return decide(parsed, state: state)
        case .failure(let error): return Answer.error(.badRequest, RequestCode.badRequest, error.message)
        }
    }

    func updateCheck(query request: Request) throws -> Response {
        let state = store.current
        _ = try Caller.authorize(request, catalog: state.catalog).get()
        var values: [String: String] = [:]
        for (key, value) in request.uri.queryParameters where UpdateRequest.fields.contains(String(key)) {
            values[String(key)] = String(value)
        }
        return decide(UpdateRequest.parse(values), state: state)
    }

    private func decide(_ parsed: Result<UpdateRequest, RequestErrors>, state: CatalogState) -> Response {
        let answer = UpdateAnswer(parsed, state: state)
        return Answer.bytes(answer.status, answer.body, generation: answer.generation)
    }

    // MARK: Device policy and validation

    func evaluate(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        // A device (its token's, or `?device=` for an admin) is answered from the generation it is served.
        let current = store.current
        let caller = try Caller.authorize(request, catalog: current.catalog).get()
        let device = try caller.device(asking: request.uri.queryParameters.get("device"), catalog: current.catalog)
            .get()
        let state = current.serving(device: device)
        let body = try await Answer.body(of: request, limit: state.catalog.settings.maxBodySize).get()
        let parsed: PolicyEvaluationRequest
        switch PolicyEvaluationRequest.parse(body, now: .now, options: readerOptions) {
        case .success(let request): parsed = request
        case .failure(let error):
            guard let diagnostic = error.diagnostic else {
                return Answer.error(.badRequest, RequestCode.badRequest, error.message)
            }
            return Answer.error(
                .unprocessableContent, diagnostic.code, "invalid query: \(error.message)", diagnostics: [diagnostic],
                code: "invalid_query")
        }
        let (query, refusal) = parsed.query.resolvingRestrictionKey()
        if let error = refusal ?? query.argumentError {
            return Answer.error(
                .unprocessableContent, error.code, "invalid query: \(error.message)", diagnostics: [error],
                code: "invalid_query")
        }
        var engine = state.catalog.policyEngine
        if let documents = parsed.profiles {
            let set = ProfileSet(documents: documents, skipInvalid: false)
            guard set.isUsable else {
                let errors = set.diagnostics.map(\.diagnostic).filter { $0.severity == .error }
                return Answer.error(
                    .unprocessableContent, CatalogCode.invalidProfiles,
                    "an inline profile cannot be loaded (\(errors.count) errors)", diagnostics: errors,
                    code: "invalid_profiles")
            }
            engine = PolicyEngine(profileSet: set)
        }
        return Answer.json(.ok, engine.evaluate(query).json, generation: state.generation)
    }

    func validateUpload(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let state = store.current
        switch try Caller.authorize(request, catalog: state.catalog).get() {
        case .device, .mdm:
            return Answer.error(.forbidden, RequestCode.forbidden, "a device or MDM token cannot use /v1/validate")
        case .admin, .open: break
        }
        guard let id = request.uri.queryParameters.get("app"), BundleID.isWellFormed(id) else {
            return Answer.error(.badRequest, RequestCode.badRequest, "?app= must name an app by its bundle id")
        }
        guard let app = state.catalog.apps[id] else {
            return Answer.error(.notFound, RequestCode.notFound, "no app '\(id)' in the catalog")
        }
        let body = try await Answer.body(of: request, limit: state.catalog.settings.maxBodySize).get()
        let checked = ConfigValidation.check(
            body, file: "\(id).plist", against: app.schema, readerOptions: readerOptions)
        let report = DiagnosticReport(files: [checked.report])
        return Answer.json(.ok, JSONRenderer().render(report), generation: state.generation)
    }

    // MARK: Health

    func ready() async -> Response {
        let state = store.current
        let lastError: JSONValue =
            state.lastReloadError.map { failure in
                .object([
                    ("at", .string(failure.at.description)),
                    (
                        "message",
                        .string(
                            "reload failed with \(failure.diagnostics.count) errors; serving generation \(state.generation)"
                        )
                    ),
                    ("diagnostics", .array(failure.diagnostics.map { JSONRenderer().render($0) })),
                ])
            } ?? .null
        return Answer.json(
            .ok,
            .object([
                ("status", .string("ready")), ("catalogGeneration", .integer(state.generation)),
                ("loadedAt", .string(state.loadedAt.description)),
                ("apps", .array(state.catalog.appIDs.map(JSONValue.string))), ("lastReloadError", lastError),
                ("store", await fleet.health),
                (
                    "rollout",
                    state.rollout.map { served in
                        .object([
                            ("generation", .integer(served.state.generation)),
                            ("phase", .string(served.rollout.phase.rawValue)),
                            ("ring", .string(served.rollout.plan.label(ofRing: served.rollout.ring))),
                            ("step", .integer(served.rollout.current.number)),
                        ])
                    } ?? .null
                ),
            ]), generation: state.generation)
    }
}

/// The answer to an update check, for the route and the event-loop fast path alike: the decision (200, or 422 when
/// it is an error) with the catalog's generation, or the JSON error of an unknown app (404).
struct UpdateAnswer {
    let status: HTTPResponse.Status
    /// The JSON text of the answer: the decision document written straight to its bytes, or the error.
    let body: [UInt8]
    let generation: Int?

    /// The request of an update-check body: the form apps send read straight from its bytes, any other through
    /// the JSON reader; or why the body is not JSON.
    static func request(_ body: UnsafeRawBufferPointer, options: PlistReaderOptions) -> Result<
        Result<UpdateRequest, RequestErrors>, MalformedRequest
    > {
        if let flat = UpdateRequest.parse(flatJSON: body) { return .success(flat) }
        return MalformedRequest.json(Array(body), options: options).map(UpdateRequest.parse)
    }

    init(_ parsed: Result<UpdateRequest, RequestErrors>, state: CatalogState) {
        switch parsed {
        case .failure(let errors):
            let decision = Decision.invalidRequest(errors, evaluatedAt: .now)
            (status, body, generation) = (.unprocessableContent, decision.jsonText(), state.generation)
        case .success(let updateRequest):
            let state = state.serving(device: updateRequest.deviceID)
            guard let app = state.catalog.apps[updateRequest.app] else {
                let error = Answer.errorBody(RequestCode.notFound, "no app '\(updateRequest.app)' in the catalog")
                (status, body, generation) = (.notFound, error.serializedBytes(), nil)
                return
            }
            let decision = app.updatePolicy.evaluate(updateRequest, now: .now)
            status = decision.decision == .error ? .unprocessableContent : .ok
            (body, generation) = (decision.jsonText(), state.generation)
        }
    }
}
