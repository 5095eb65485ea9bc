import Foundation

/// The client an app makes: over `URLSession`.
extension MDMConfClient {
    /// A client that talks to `server` over `URLSession` (``URLSessionTransport``): what an app uses.
    public init(server: URL, token: String?, app: String, cache: URL, device: String? = nil, timeout: Double = 5) {
        self.init(
            server: server, token: token, app: app, cache: cache, device: device, timeout: timeout,
            transport: URLSessionTransport())
    }
}
