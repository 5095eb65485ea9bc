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
            eachHeader { name, value in headers[name] = value }
            return headers
        }

        /// Calls `body` with each response header in turn, for the writers that build the response themselves.
        func eachHeader(_ body: (HTTPField.Name, String) -> Void) {
            body(.eTag, representation.etag)
            body(.cacheControl, "private, max-age=\(cacheMaxAge)")
            body(.vary, "Accept, Authorization")
            body(Answer.generationField, String(generation))
            if let variant { body(Answer.variantField, variant) }
            if !notModified {
                body(.contentType, isJSON ? "application/json" : "application/x-plist; charset=utf-8")
            }
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
                        .badRequest, RequestCode.badRequest, "the app id in the path is not a bundle id")))
        }
        let device: String?
        switch caller.device(asking: named, catalog: state.catalog) {
        case .success(let chosen): device = chosen
        case .failure(let refusal): return .refuse(refusal)
        }
        // A rollout that reached the device serves it from its generation.
        let state = state.serving(device: device)
        guard let app = state.catalog.apps[id] else {
            return .refuse(
                Refusal(response: Answer.error(.notFound, RequestCode.notFound, "no app '\(id)' in the catalog")))
        }
        // `?platform=`, else what the inventory says the device is: Android devices read JSON by default.
        let family =
            platform.map { ConfigPlatform($0) } ?? device.flatMap { state.catalog.devices[$0]?.platform } ?? .apple
        let config = app.config(forDevice: device, platform: family)
        let preferred: ContentNegotiation.Format = family == .android && app.android != nil ? .json : .plist
        guard let format = ContentNegotiation.configFormat(accept: accept, preferring: preferred) else {
            return .refuse(
                Refusal(
                    response: Answer.error(
                        .notAcceptable, RequestCode.notAcceptable,
                        "a configuration is served as application/x-plist or application/json")))
        }
        let representation = format == .json ? config.json : config.xml
        return .serve(
            Served(
                representation: representation, isJSON: format == .json, variant: config.variant,
                notModified: ifNoneMatch.map { ContentNegotiation.matches($0, etag: representation.etag) } ?? false,
                cacheMaxAge: state.catalog.settings.cacheMaxAge, generation: state.generation))
    }

    /// The 200 or 304 a `GET` of `target` (path and query, without `%`) gets, or nil when the route should answer:
    /// the event-loop fast paths' entry.
    static func served(
        target: Substring, authorization: String?, accept: String?, ifNoneMatch: String?, state: CatalogState
    ) -> Served? {
        // Read as bytes: the target is ASCII, and Character-wise matching cost a tenth of the request.
        let parts =
            target.utf8.withContiguousStorageIfAvailable(Self.parts)
            ?? Array(target.utf8).withUnsafeBufferPointer(Self.parts)
        guard let (bundleID, device, platform) = parts else { return nil }
        let outcome = resolve(
            bundleID: bundleID, device: device, platform: platform, authorization: authorization, accept: accept,
            ifNoneMatch: ifNoneMatch, state: state)
        if case .serve(let served) = outcome { return served }
        return nil
    }

    /// The app id and the `device` and `platform` query parameters of a `/v1/apps/{bundleId}/config` target, or nil
    /// for any other target.
    private static func parts(_ target: UnsafeBufferPointer<UInt8>) -> (String, String?, String?)? {
        let prefix: StaticString = "/v1/apps/"
        let suffix: StaticString = "/config"
        let pathEnd = target.firstIndex(of: UInt8(ascii: "?")) ?? target.count
        let (prefixCount, suffixCount) = (prefix.utf8CodeUnitCount, suffix.utf8CodeUnitCount)
        guard pathEnd > prefixCount + suffixCount,
            prefix.equals(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: target[0..<prefixCount]))),
            suffix.equals(
                UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: target[(pathEnd - suffixCount)..<pathEnd])))
        else { return nil }
        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: target[range]), as: UTF8.self)
        }
        let bundleID = text(prefixCount..<(pathEnd - suffixCount))
        var device: String?
        var platform: String?
        var start = pathEnd + 1
        while start < target.count {
            var end = start
            while end < target.count, target[end] != UInt8(ascii: "&") { end += 1 }
            var equals = start
            while equals < end, target[equals] != UInt8(ascii: "=") { equals += 1 }
            let name = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: target[start..<equals]))
            let value = equals < end ? (equals + 1)..<end : end..<end
            if ("device" as StaticString).equals(name) { device = text(value) }
            if ("platform" as StaticString).equals(name) { platform = text(value) }
            start = end + 1
        }
        return (bundleID, device, platform)
    }
}
