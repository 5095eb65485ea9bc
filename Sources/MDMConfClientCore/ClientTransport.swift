import Foundation

/// One HTTP request as the client sends it.
public struct ClientRequest: Sendable, Equatable {
    public var method: String
    public var url: URL
    /// Header names as written; the transport sends them unchanged.
    public var headers: [String: String]
    public var body: [UInt8]?

    public init(method: String, url: URL, headers: [String: String] = [:], body: [UInt8]? = nil) {
        (self.method, self.url, self.headers, self.body) = (method, url, headers, body)
    }
}

/// One HTTP answer: its status, headers (names lower-cased) and body.
public struct ClientResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = Dictionary(
            headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// The value of a header, by its name in any case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// How the client reaches the server: one request, one answer, or an error when no answer came (no network,
/// refused connection, timeout). Any HTTP status is an answer, not an error.
///
/// `URLSessionTransport` (module MDMConfClient) is the one an app uses; the fleet simulator brings one over
/// AsyncHTTPClient, tests their own.
public protocol ClientTransport: Sendable {
    func send(_ request: ClientRequest, timeout: Double) async throws -> ClientResponse
}
