import AsyncHTTPClient
import Foundation
import MDMConfClientCore
import NIOCore
import NIOHTTP1

/// The simulator's transport: AsyncHTTPClient over SwiftNIO, with a connection pool per host, no redirects and no
/// decompression, so what a device sends and gets is exactly what the server wrote. (The `mdmconf` binary does not
/// link URLSession: FoundationNetworking alone cost every command about 7 ms of start-up.) Call ``shutdown()``
/// when done.
public final class HTTPClientTransport: ClientTransport {
    private let client: HTTPClient
    /// The largest answer body read.
    static let bodyLimit = 64 << 20

    /// `maxConnectionsPerHost` bounds parallel requests to one server.
    public init(maxConnectionsPerHost: Int = 8) {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = maxConnectionsPerHost
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func send(_ request: ClientRequest, timeout: Double) async throws -> ClientResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            outgoing.headers.add(name: name, value: value)
        }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(outgoing, timeout: .milliseconds(Int64(max(0.001, timeout) * 1000)))
        let body = try await response.body.collect(upTo: Self.bodyLimit)
        var headers: [String: String] = [:]
        for header in response.headers where headers[header.name.lowercased()] == nil {
            headers[header.name.lowercased()] = header.value
        }
        return ClientResponse(status: Int(response.status.code), headers: headers, body: Array(body.readableBytesView))
    }

    /// Closes the pool's connections; the transport cannot be used afterwards.
    public func shutdown() async {
        try? await client.shutdown()
    }
}
