import Fleet
import HTTPTypes
import Hummingbird
import MDMConf
import MDMDiagnostics
import NIOCore
import PropertyList
import UpdatePolicy

/// The declarative channel served live from the current catalog: each Apple device's tokens, declaration items and
/// declarations, as `mdmconf ddm export` writes them, and the data assets by the SHA-256 of their bytes. A reload or
/// publish changes the tokens at once: every answer is made from the catalog state the request started with.
struct DDMRoutes: Sendable {
    let catalogs: CatalogStore
    let fleet: FleetService
    let readerOptions: PlistReaderOptions
    /// The URL the assets' `DataURL` starts with; nil when the server has none it may hand out (plain HTTP outside
    /// development mode on loopback, without `--public-url`).
    let baseURL: String?

    func register(on router: Router<BasicRequestContext>) {
        router.get("/v1/ddm/assets/:file") { request, context in asset(request, context) }
        router.post("/v1/ddm/:device/status") { request, context in try await status(request, context) }
        router.get("/v1/ddm/:device/tokens") { request, context in
            try deviceSet(request, context) { set, _ in Answer.bytes(.ok, Array(set.tokensJSON.utf8)) }
        }
        router.get("/v1/ddm/:device/declaration-items") { request, context in
            try deviceSet(request, context) { set, _ in Answer.bytes(.ok, Array(set.declarationItemsJSON.utf8)) }
        }
        router.get("/v1/ddm/:device/declaration/:type/:identifier") { request, context in
            try deviceSet(request, context) { set, context in
                guard let type = context.parameters.get("type"), let identifier = context.parameters.get("identifier"),
                    let declaration = set.declaration(type: type, identifier: identifier)
                else {
                    return Answer.error(
                        .notFound, RequestCode.notFound,
                        "the device's set has no such declaration (see its declaration-items)")
                }
                return Answer.bytes(.ok, Array(declaration.json.utf8))
            }
        }
    }

    /// The base URL for a server: `--public-url`, else the address it listens on when that is https or development
    /// mode on loopback; nil otherwise. A public URL must be https unless the server is in development mode on loopback.
    static func baseURL(options: ServerOptions, development: Bool) -> String? {
        let local = development && ServerOptions.isLoopback(options.host)
        if let url = options.publicURL {
            return url.hasPrefix("https://") || (local && url.hasPrefix("http://")) ? url : nil
        }
        let host = options.host.contains(":") && !options.host.hasPrefix("[") ? "[\(options.host)]" : options.host
        if options.tls != nil { return "https://\(host):\(options.port)" }
        return local ? "http://\(host):\(options.port)" : nil
    }

    /// `GET /v1/ddm/assets/{sha256}.plist`: the bytes, immutable, named by their hash; no token needed (the
    /// declaration's `Authentication` is `None`: the URL is the secret's hash, not a guessable name).
    private func asset(_ request: Request, _ context: BasicRequestContext) -> Response {
        let state = catalogs.current
        guard let file = context.parameters.get("file"), file.hasSuffix(".plist") else {
            return Answer.error(.notFound, RequestCode.notFound, "assets are named <sha256>.plist")
        }
        let hash = String(file.dropLast(6))
        guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            return Answer.error(
                .badRequest, RequestCode.badRequest, "an asset's name is the 64 lower-case hex digits of its SHA-256")
        }
        // Content-addressed: an asset of the generation being rolled out is served to whoever has its hash.
        guard let bytes = state.catalog.assets[hash] ?? state.rollout?.state.catalog.assets[hash] else {
            return Answer.error(.notFound, RequestCode.notFound, "no asset with that hash in the catalog being served")
        }
        var headers = HTTPFields()
        headers[.eTag] = "\"\(hash)\""
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        if let match = request.headers[.ifNoneMatch], ContentNegotiation.matches(match, etag: "\"\(hash)\"") {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/x-plist"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The device in the path and the catalog state, for a caller that may act for it: an admin or MDM token (or
    /// development mode) any Apple device, a device token its own; with the base URL the set needs.
    private func authorizedDevice(_ request: Request, _ context: BasicRequestContext)
        -> Result<(device: String, state: CatalogState, baseURL: String), Refusal>
    {
        let state = catalogs.current
        func refuse(_ response: Response) -> Result<(device: String, state: CatalogState, baseURL: String), Refusal> {
            .failure(Refusal(response: response))
        }
        let caller: Caller
        switch Caller.authorize(request, catalog: state.catalog) {
        case .success(let authorized): caller = authorized
        case .failure(let refusal): return .failure(refusal)
        }
        guard let device = context.parameters.get("device"), CatalogDevice.isValidID(device) else {
            return refuse(
                Answer.error(.badRequest, RequestCode.badRequest, "the device in the path is not a device id"))
        }
        if case .device(let own) = caller, own != device {
            return refuse(
                Answer.error(.forbidden, RequestCode.forbidden, "a device token reads only its own declarations"))
        }
        guard let known = state.catalog.devices[device] else {
            return refuse(Answer.error(.notFound, RequestCode.notFound, "no device '\(device)' in the inventory"))
        }
        guard known.platform == .apple else {
            return refuse(
                Answer.error(
                    .notFound, RequestCode.notFound,
                    "'\(device)' is an Android device: declarative management is Apple's"))
        }
        guard let baseURL else {
            return refuse(
                Answer.error(
                    .serviceUnavailable, RequestCode.ddmUnavailable,
                    "the declarative channel needs an https URL for its assets: serve over TLS, or give --public-url https://…"
                ))
        }
        return .success((device, state.serving(device: device), baseURL))
    }

    /// The set of the device in the path, for a caller that may read it.
    private func deviceSet(
        _ request: Request, _ context: BasicRequestContext,
        _ answer: (DDMDeviceSet, BasicRequestContext) -> Response
    ) throws -> Response {
        let (device, state, baseURL) = try authorizedDevice(request, context).get()
        let exporter = DDMExporter(baseURL: baseURL, timestamp: state.changedAt.description)
        var response = answer(exporter.set(for: device, catalog: state.catalog), context)
        response.headers[Answer.generationField] = String(state.generation)
        return response
    }

    /// `POST /v1/ddm/{device}/status`: a status report, stored as the check-in it amounts to (``DDMStatusReport``)
    /// and answered as a check-in is, once it is committed; 400, 422 and 503 leave the store as it was.
    private func status(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (device, state, baseURL): (String, CatalogState, String) = try authorizedDevice(request, context).get()
        guard let writer = fleet.writer else { return CheckInIntake.fleetDisabled }
        let body = try await Answer.body(of: request, limit: state.catalog.settings.maxBodySize).get()
        let root: PlistNode
        switch MalformedRequest.json(body, options: readerOptions) {
        case .success(let node): root = node
        case .failure(let error): return Answer.error(.badRequest, RequestCode.badRequest, error.message)
        }
        let set = DDMExporter(baseURL: baseURL, timestamp: state.changedAt.description).set(
            for: device, catalog: state.catalog)
        let checkIn: CheckIn
        switch DDMStatusReport.checkIn(root, device: device, set: set, catalog: state.catalog) {
        case .success(let read): checkIn = read
        case .failure(let errors) where errors.malformed:
            return Answer.error(.badRequest, RequestCode.badRequest, "a status report is a JSON object")
        case .failure(let errors): return CheckInIntake.invalid(errors)
        }
        // A declaration the device reports invalid is a configuration error, as a check-in's `configError` is.
        let record = fleet.record(checkIn, state: state)
        if let refusal = await CheckInIntake.store(record, with: writer) { return refusal }
        let answer = CheckInAnswer.Decided(
            for: record, catalog: state.catalog, generation: state.generation, now: record.receivedAt)
        return Answer.bytes(.ok, answer.jsonText(), generation: state.generation)
    }
}
