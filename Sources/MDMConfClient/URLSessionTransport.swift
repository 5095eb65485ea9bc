import Foundation
@_exported import MDMConfClientCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
