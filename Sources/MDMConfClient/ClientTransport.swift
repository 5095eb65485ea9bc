import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP request as the client sends it.
public struct ClientRequest: Sendable, Equatable {
    public var method: String
    public var url: URL
    /// Header names as written; the transport sends them unchanged.
    public var headers: [String: String]
    public var body: [UInt8]?

    public init(method: String, url: URL, headers: [String: String] = [:], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP answer: its status, headers (names lower-cased) and body.
public struct ClientResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// The value of a header, by its name in any case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// How the client reaches the server: one request, one answer, or an error when no answer came (no network,
/// refused connection, timeout). Any HTTP status is an answer, not an error.
///
/// ``URLSessionTransport`` is the one an app uses; tests and the fleet simulator can bring their own.
public protocol ClientTransport: Sendable {
    func send(_ request: ClientRequest, timeout: Double) async throws -> ClientResponse
}

/// The transport over Foundation's `URLSession` (FoundationNetworking on Linux): no HTTP cache, no cookies,
/// so `If-None-Match` and the configuration cache are the client's own.
public final class URLSessionTransport: ClientTransport {
    private let session: URLSession

    /// A transport with its own session; `maxConnectionsPerHost` bounds parallel requests to one server.
    public init(maxConnectionsPerHost: Int = 6) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: ClientRequest, timeout: Double) async throws -> ClientResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return ClientResponse(status: http.statusCode, headers: headers, body: [UInt8](data))
    }
}
