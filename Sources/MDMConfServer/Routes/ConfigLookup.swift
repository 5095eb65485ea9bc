import DevicePolicy
import HTTPTypes
import MDMConf
import MDMDiagnostics

/// `GET /v1/apps/{bundleId}/config` decided once, for the route and for the event-loop fast path alike: who is
/// asking, which device, which form, and whether the client already has those bytes.
enum ConfigLookup {
    struct Served {
        let representation: ServedConfig.Representation
        let isJSON: Bool
        let variant: String?
        let notModified: Bool
        let cacheMaxAge: Int
        let generation: Int

        var status: HTTPResponse.Status { notModified ? .notModified : .ok }

        /// The response headers (Content-Type only with a body; Content-Length is the writer's).
        func headers() -> HTTPFields {
            var headers = HTTPFields()
            headers.reserveCapacity(7)
            headers[.eTag] = representation.etag
            headers[.cacheControl] = "private, max-age=\(cacheMaxAge)"
            headers[.vary] = "Accept, Authorization"
            headers[Answer.generationField] = String(generation)
            if let variant { headers[Answer.variantField] = variant }
            if !notModified {
                headers[.contentType] = isJSON ? "application/json" : "application/x-plist; charset=utf-8"
            }
            return headers
        }
    }

    enum Outcome {
        case serve(Served)
        case refuse(Refusal)
    }

    static func resolve(
        bundleID: String?, device named: String?, platform: String? = nil, authorization: String?, accept: String?,
        ifNoneMatch: String?, state: CatalogState
    ) -> Outcome {
        let caller: Caller
        switch Caller.authorize(authorization: authorization, catalog: state.catalog) {
        case .success(let authorized): caller = authorized
        case .failure(let refusal): return .refuse(refusal)
        }
        guard let id = bundleID, BundleID.isWellFormed(id) else {
            return .refuse(
                Refusal(
                    response: Answer.error(
                        .badRequest, CatalogCode.badRequest, "the app id in the path is not a bundle id")))
        }
        let device: String?
        switch caller.device(asking: named, catalog: state.catalog) {
        case .success(let chosen): device = chosen
        case .failure(let refusal): return .refuse(refusal)
        }
        guard let app = state.catalog.apps[id] else {
            return .refuse(
                Refusal(response: Answer.error(.notFound, CatalogCode.notFound, "no app '\(id)' in the catalog")))
        }
        // `?platform=`, else what the inventory says the device is: Android devices read JSON by default.
        let family = platform.map { ConfigPlatform($0) } ?? device.flatMap { state.catalog.devices[$0]?.platform } ?? .apple
        let config = app.config(forDevice: device, platform: family)
        let preferred: ContentNegotiation.Format = family == .android && app.android != nil ? .json : .plist
        guard let format = ContentNegotiation.configFormat(accept: accept, preferring: preferred) else {
            return .refuse(
                Refusal(
                    response: Answer.error(
                        .notAcceptable, CatalogCode.notAcceptable,
                        "a configuration is served as application/x-plist or application/json")))
        }
        let representation = format == .json ? config.json : config.xml
        return .serve(
            Served(
                representation: representation, isJSON: format == .json, variant: config.variant,
                notModified: ifNoneMatch.map { ContentNegotiation.matches($0, etag: representation.etag) } ?? false,
                cacheMaxAge: state.catalog.settings.cacheMaxAge, generation: state.generation))
    }
}
