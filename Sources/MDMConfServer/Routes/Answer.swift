import DevicePolicy
import HTTPTypes
import Hummingbird
import MDMConf
import MDMDiagnostics
import NIOCore

/// A response a handler answers with instead of going on: thrown (Hummingbird answers an `HTTPResponseError`
/// with its response), or returned where the answer is a value, as on the fast paths.
struct Refusal: HTTPResponseError, Sendable {
    let response: Response

    var status: HTTPResponse.Status { response.status }

    func response(from request: Request, context: some RequestContext) throws -> Response { response }
}

/// Building responses: JSON bodies, the error shape of *Serving a catalog*, request bodies within the limit.
enum Answer {
    static let generationField = fieldName("X-MDMConf-Catalog-Generation")
    static let variantField = fieldName("X-MDMConf-Config-Variant")
    /// The cursor of the next page of a CSV listing (JSON listings carry it as `next`).
    static let nextPageField = fieldName("X-MDMConf-Next-Page")

    static func fieldName(_ text: String) -> HTTPField.Name {
        guard let name = HTTPField.Name(text) else { preconditionFailure("'\(text)' is not a header field name") }
        return name
    }

    static func bytes(_ status: HTTPResponse.Status, _ bytes: [UInt8], generation: Int? = nil) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let generation { headers[generationField] = String(generation) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONValue, generation: Int? = nil) -> Response {
        bytes(status, value.serializedBytes(), generation: generation)
    }

    /// `{"error": {"code", "message", "diagnostics"}}`; `code` is the snake_case reason (`not_found`), the MC code
    /// goes with it.
    static func error(
        _ status: HTTPResponse.Status, _ code: DiagnosticCode, _ message: String, diagnostics: [Diagnostic] = [],
        code reason: String? = nil, headers extra: HTTPFields = HTTPFields()
    ) -> Response {
        var response = json(status, errorBody(code, message, diagnostics: diagnostics, code: reason))
        for field in extra { response.headers.append(field) }
        return response
    }

    /// The body of `error(…)`.
    static func errorBody(
        _ code: DiagnosticCode, _ message: String, diagnostics: [Diagnostic] = [], code reason: String? = nil
    ) -> JSONValue {
        .object([
            (
                "error",
                .object([
                    ("code", .string(reason ?? code.name.replacingHyphens())), ("mc", .string(code.code)),
                    ("message", .string(message)),
                    ("diagnostics", .array(diagnostics.map { JSONRenderer().render($0) })),
                ])
            )
        ])
    }

    /// The request body, or 413 when it is (or announces itself) over `limit`.
    static func body(of request: Request, limit: Int) async -> Result<[UInt8], Refusal> {
        let tooLarge = Refusal(
            response: error(
                .contentTooLarge, RequestCode.bodyTooLarge, "the request body is over the limit of \(limit) bytes"))
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit { return .failure(tooLarge) }
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return .success(Array(buffer.readableBytesView))
        } catch is NIOTooManyBytesError {
            return .failure(tooLarge)
        } catch {
            return .failure(
                Refusal(
                    response: Answer.error(.badRequest, RequestCode.badRequest, "the request body could not be read")))
        }
    }
}

extension String {
    fileprivate func replacingHyphens() -> String { String(map { $0 == "-" ? "_" : $0 }) }
}

/// Who is asking (*Serving a catalog*).
enum Caller: Sendable, Equatable {
    /// Development mode: no tokens file.
    case open
    case admin
    case device(String)
    /// A declarative-management server's token: any device's declarations, nothing of the fleet.
    case mdm

    static func authorize(_ request: Request, catalog: Catalog) -> Result<Caller, Refusal> {
        authorize(authorization: request.headers[.authorization], catalog: catalog)
    }

    static func authorize(authorization header: String?, catalog: Catalog) -> Result<Caller, Refusal> {
        guard catalog.tokens != nil else { return .success(.open) }
        func unauthorized(_ message: String, _ challenge: String) -> Result<Caller, Refusal> {
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = challenge
            return .failure(
                Refusal(response: Answer.error(.unauthorized, RequestCode.unauthorized, message, headers: headers)))
        }
        guard let header else {
            return unauthorized("this catalog needs a bearer token", "Bearer realm=\"mdmconf\"")
        }
        // The token's bytes hashed where they stand: no substring, no string (this is on every request's path).
        var text = header
        // nil: not `Bearer <token>`; .some(nil): a token no entry of tokens.plist has.
        let scope: CatalogToken.Scope?? = text.withUTF8 { bytes in
            bearerTokenRange(bytes).map { catalog.scope(ofBearerBytes: UnsafeBufferPointer(rebasing: bytes[$0])) }
        }
        guard let scope else {
            return unauthorized(
                "the Authorization header must be 'Bearer <token>'",
                "Bearer realm=\"mdmconf\", error=\"invalid_request\"")
        }
        switch scope {
        case .admin?: return .success(.admin)
        case .device(let id)?: return .success(.device(id))
        case .mdm?: return .success(.mdm)
        case nil:
            return unauthorized("the bearer token is not valid", "Bearer realm=\"mdmconf\", error=\"invalid_token\"")
        }
    }

    /// Where the token of `Bearer <token>` is in the header's bytes (the scheme in any case, one space, the token
    /// without trailing spaces and tabs), or nil when the header has another form.
    static func bearerTokenRange(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let space = UInt8(ascii: " ")
        var index = 0
        while index < bytes.count, bytes[index] == space { index += 1 }
        let schemeStart = index
        while index < bytes.count, bytes[index] != space { index += 1 }
        // `| 0x20` folds the letters of "bearer", and maps no other byte onto them.
        guard index < bytes.count, index - schemeStart == 6,
            bytes[schemeStart] | 0x20 == UInt8(ascii: "b"), bytes[schemeStart + 1] | 0x20 == UInt8(ascii: "e"),
            bytes[schemeStart + 2] | 0x20 == UInt8(ascii: "a"), bytes[schemeStart + 3] | 0x20 == UInt8(ascii: "r"),
            bytes[schemeStart + 4] | 0x20 == UInt8(ascii: "e"), bytes[schemeStart + 5] | 0x20 == UInt8(ascii: "r")
        else { return nil }
        let tokenStart = index + 1
        guard tokenStart < bytes.count else { return nil }
        var end = bytes.count
        while end > tokenStart, bytes[end - 1] == space || bytes[end - 1] == 0x09 { end -= 1 }
        return tokenStart..<end
    }

    /// The device whose configuration is served: a device token's own device; otherwise `?device=` (unknown → 404)
    /// or none.
    func device(asking named: String?, catalog: Catalog) -> Result<String?, Refusal> {
        if case .device(let own) = self {
            guard named == nil || named == own else {
                return .failure(
                    Refusal(
                        response: Answer.error(
                            .forbidden, RequestCode.forbidden,
                            "a device token can only read its own device's configuration")))
            }
            return .success(own)
        }
        guard let named else { return .success(nil) }
        guard CatalogDevice.isValidID(named) else {
            return .failure(
                Refusal(response: Answer.error(.badRequest, RequestCode.badRequest, "?device= is not a device id")))
        }
        guard catalog.devices[named] != nil else {
            return .failure(
                Refusal(
                    response: Answer.error(.notFound, RequestCode.notFound, "no device '\(named)' in devices.plist")))
        }
        return .success(named)
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> Substring {
        var text = self
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}

/// `Accept` and `If-None-Match` as RFC 9110 reads them, for the two forms a configuration has.
enum ContentNegotiation {
    enum Format { case plist, json }

    /// The form to serve: the acceptable one with the higher quality (`preferred` on a tie, and when `Accept` is
    /// absent: JSON for Android devices, the plist for Apple's), or nil when neither is acceptable (406).
    static func configFormat(accept: String?, preferring preferred: Format = .plist) -> Format? {
        guard let accept, !accept.isEmpty else { return preferred }
        var plist = 0.0
        var json = 0.0
        var plistSpecific = 0
        var jsonSpecific = 0
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";")
            let type = parts[0].trimmingCharacters().drop { $0 == " " || $0 == "\t" }.lowercased()
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingCharacters().drop(while: { $0 == " " }).lowercased() == "q" {
                    quality = Double(pair[1].trimmingCharacters().drop(while: { $0 == " " })) ?? 0
                }
            }
            let specificity: Int
            let forPlist: Bool
            let forJSON: Bool
            switch type {
            case "application/x-plist", "application/xml", "text/xml":
                (specificity, forPlist, forJSON) = (3, true, false)
            case "application/json": (specificity, forPlist, forJSON) = (3, false, true)
            case "application/*": (specificity, forPlist, forJSON) = (2, true, true)
            case "*/*": (specificity, forPlist, forJSON) = (1, true, true)
            default: continue
            }
            if forPlist, specificity > plistSpecific || (specificity == plistSpecific && quality > plist) {
                (plist, plistSpecific) = (quality, specificity)
            }
            if forJSON, specificity > jsonSpecific || (specificity == jsonSpecific && quality > json) {
                (json, jsonSpecific) = (quality, specificity)
            }
        }
        if plist <= 0 && json <= 0 { return nil }
        return json == plist ? preferred : json > plist ? .json : .plist
    }

    /// True when an `If-None-Match` list names `etag` (or is `*`); weak comparison, as RFC 9110 asks for GET. Read
    /// as bytes: it is on every revalidation's path.
    static func matches(_ header: String, etag: String) -> Bool {
        var header = header
        var etag = etag
        return header.withUTF8 { list in
            etag.withUTF8 { wanted in
                /// Whether the bytes of `list` from `first` on are `wanted`'s (a loop over the buffers: a slice's
                /// `elementsEqual` cost about 20 instructions a byte).
                func wantedAt(_ first: Int) -> Bool {
                    for offset in 0..<wanted.count where list[first + offset] != wanted[offset] { return false }
                    return true
                }
                // The usual revalidation sends back the one ETag it was served: compared at once.
                if list.count == wanted.count, wantedAt(0) { return true }
                var start = 0
                while start <= list.count {
                    var end = start
                    while end < list.count, list[end] != UInt8(ascii: ",") { end += 1 }
                    var first = start
                    var last = end
                    while first < last, list[first] == UInt8(ascii: " ") || list[first] == UInt8(ascii: "\t") {
                        first += 1
                    }
                    while last > first, list[last - 1] == UInt8(ascii: " ") || list[last - 1] == UInt8(ascii: "\t") {
                        last -= 1
                    }
                    if last - first == 1, list[first] == UInt8(ascii: "*") { return true }
                    if last - first > 2, list[first] == UInt8(ascii: "W"), list[first + 1] == UInt8(ascii: "/") {
                        first += 2
                    }
                    if last - first == wanted.count, wantedAt(first) { return true }
                    start = end + 1
                }
                return false
            }
        }
    }
}
