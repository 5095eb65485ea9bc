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

    /// The task is created and resumed on a dispatch queue, not on the caller's thread: FoundationNetworking's
    /// `data(for:)` waits with `DispatchQueue.sync` on a thread of the concurrency pool, and with a few dozen
    /// requests at once on two cores that pool was seen to deadlock. Cancelling the caller cancels the task.
    public func send(_ request: ClientRequest, timeout: Double) async throws -> ClientResponse {
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        let session = session
        let prepared = urlRequest
        let handle = TaskHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<ClientResponse, any Error>) in
                DispatchQueue.global().async {
                    let task = session.dataTask(with: prepared) { data, response, error in
                        if let error {
                            continuation.resume(throwing: error)
                        } else if let http = response as? HTTPURLResponse {
                            var headers: [String: String] = [:]
                            for (name, value) in http.allHeaderFields {
                                if let name = name as? String, let value = value as? String { headers[name] = value }
                            }
                            continuation.resume(
                                returning: ClientResponse(
                                    status: http.statusCode, headers: headers, body: [UInt8](data ?? Data())))
                        } else {
                            continuation.resume(throwing: URLError(.badServerResponse))
                        }
                    }
                    handle.start(task)
                }
            }
        } onCancel: {
            handle.cancel()
        }
    }

    /// The data task of one request, cancelled if the caller was cancelled before or after it started.
    private final class TaskHandle: @unchecked Sendable {
        private let lock = NSLock()
        private var task: URLSessionDataTask?
        private var cancelled = false

        func start(_ task: URLSessionDataTask) {
            let cancelNow = lock.withLock {
                self.task = task
                return cancelled
            }
            task.resume()
            if cancelNow { task.cancel() }
        }

        func cancel() {
            let task = lock.withLock {
                cancelled = true
                return self.task
            }
            task?.cancel()
        }
    }
}
