import CivilTime
import DevicePolicy
import MDMConf
import MDMDiagnostics
import PropertyList

/// The body of `POST /v1/policy/evaluate` (*Device policies*): `{query: {type, arg, ssidHex, hidden, at, trace},
/// profiles?: [{name, xml | base64}]}`.
public struct PolicyEvaluationRequest: Sendable {
    /// The question asked.
    public let query: PolicyQuery
    /// Inline profiles, or nil for the catalog's.
    public let profiles: [ProfileDocument]?

    /// The request, or why it is malformed (a message naming the member).
    public static func parse(_ bytes: [UInt8], now: Instant, options: PlistReaderOptions = PlistReaderOptions())
        -> Result<PolicyEvaluationRequest, MalformedRequest>
    {
        let root: PlistNode
        switch MalformedRequest.json(bytes, options: options) {
        case .success(let node): root = node
        case .failure(let error): return .failure(error)
        }
        guard case .dictionary(let body) = root.value else {
            return .failure(MalformedRequest("the body must be an object"))
        }
        for key in body.keys where key != "query" && key != "profiles" {
            return .failure(MalformedRequest("unknown member '\(key)' (the body has query and profiles)"))
        }
        guard let queryNode = body["query"], case .dictionary(let fields) = queryNode.value else {
            return .failure(MalformedRequest("'query' must be an object"))
        }
        let query: PolicyQuery
        switch PolicyQuery.parse(fields, now: now) {
        case .success(let parsed): query = parsed
        case .failure(let error): return .failure(MalformedRequest(error.message, diagnostic: error.diagnostic))
        }
        guard let profilesNode = body["profiles"] else {
            return .success(PolicyEvaluationRequest(query: query, profiles: nil))
        }
        guard case .array(let items) = profilesNode.value else {
            return .failure(MalformedRequest("'profiles' must be an array of {name, xml | base64}"))
        }
        let loader = ProfileLoader(readerOptions: options)
        var documents: [ProfileDocument] = []
        for (index, item) in items.enumerated() {
            guard case .dictionary(let profile) = item.value, case .string(let name)? = profile["name"]?.value,
                !name.isEmpty
            else {
                return .failure(MalformedRequest("profiles[\(index)] must be an object with a name"))
            }
            switch (profile["xml"]?.value, profile["base64"]?.value) {
            case (.string(let xml)?, nil):
                documents.append(loader.load(Array(xml.utf8), file: name))
            case (nil, .string(let text)?):
                guard case .success(let bytes) = Base64.decode(Array(text.utf8)) else {
                    return .failure(MalformedRequest("profiles[\(index)].base64 is not base64"))
                }
                documents.append(loader.load(bytes, file: name))
            default:
                return .failure(MalformedRequest("profiles[\(index)] needs exactly one of xml and base64 (strings)"))
            }
        }
        return .success(PolicyEvaluationRequest(query: query, profiles: documents))
    }
}

/// A request body or query string that cannot be understood (HTTP 400), or, with a `diagnostic`, one that is
/// understood but holds an invalid query value (HTTP 422, like the CLI's exit 65).
public struct MalformedRequest: Error, Sendable {
    /// What is wrong, naming the member.
    public let message: String
    /// The finding about an invalid value (HTTP 422); nil when the request cannot be understood (HTTP 400).
    public let diagnostic: Diagnostic?

    /// A request refused for `message`.
    public init(_ message: String, diagnostic: Diagnostic? = nil) {
        self.message = message
        self.diagnostic = diagnostic
    }

    /// A request body as JSON (`null` members read as absent), or why it is not JSON.
    public static func json(_ bytes: [UInt8], options: PlistReaderOptions) -> Result<PlistNode, MalformedRequest> {
        let document = JSONPlistReader(options: options, nullMembersAreAbsent: true).read(bytes, file: "request")
        guard !document.hasErrors, let root = document.root else {
            let reason = document.diagnostics.first { $0.severity == .error }?.message ?? "empty body"
            return .failure(MalformedRequest("the body is not JSON: \(reason)"))
        }
        return .success(root)
    }
}
