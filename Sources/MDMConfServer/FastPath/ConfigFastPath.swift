import HTTPTypes
import Metrics
import NIOCore
import NIOHTTPTypes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Answers `GET /v1/apps/{bundleId}/config` on the event loop, after the HTTP decoder, where `WireFastPath` did not
/// (HTTP/2 streams, connections that left the front path), when the answer is the bytes of a configuration (200)
/// or "you have them" (304): the same `ConfigLookup` as the route, without the hop to a task and the
/// router. Everything else (refusals, other routes, a request with `%` in its target, or any request while an
/// earlier one on the connection is still being answered, so responses keep their order) goes on to
/// Hummingbird unchanged.
final class ConfigFastPath: HTTPPartHandler {

    private let store: CatalogStore
    /// Requests passed on to Hummingbird whose response has not ended yet.
    private var forwarded = 0
    /// The answer to the request being read, written at its end.
    private var pending: (served: ConfigLookup.Served, close: Bool, started: UInt64)?
    private var dates = HTTPDate()

    init(store: CatalogStore) { self.store = store }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if forwarded == 0, let served = answer(request) {
                pending = (
                    served, request.headerFields[.connection]?.lowercased() == "close", MonotonicClock.nanoseconds
                )
                return
            }
            forwarded += 1
            context.fireChannelRead(data)
        case .body:
            if pending == nil { context.fireChannelRead(data) }
        case .end:
            guard let (served, close, started) = pending else {
                context.fireChannelRead(data)
                return
            }
            pending = nil
            respond(context, served, close: close)
            FastPathMetrics.config.record(status: served.status, nanoseconds: MonotonicClock.nanoseconds &- started)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), forwarded > 0 { forwarded -= 1 }
        context.write(data, promise: promise)
    }

    /// The 200 or 304 this request gets, or nil when Hummingbird should answer it.
    private func answer(_ request: HTTPRequest) -> ConfigLookup.Served? {
        guard request.method == .get, let target = request.path, !target.utf8.contains(UInt8(ascii: "%")) else {
            return nil
        }
        let fields = request.headerFields
        return ConfigLookup.served(
            target: target[...], authorization: fields[.authorization], accept: fields[.accept],
            ifNoneMatch: fields[.ifNoneMatch], state: store.current)
    }

    private func respond(_ context: ChannelHandlerContext, _ served: ConfigLookup.Served, close: Bool) {
        var headers = served.headers()
        let bytes = served.notModified ? [] : served.representation.bytes
        if !served.notModified { headers[.contentLength] = String(bytes.count) }
        FastPathResponse.write(context, served.status, headers, bytes, close: close, dates: &dates)
    }
}

/// A whole response written by a fast path: `headers` with `Date`, `Server` and, with `close`, `Connection: close`
/// added, the body when there is one, then a flush (and the connection closed after it, with `close`).
enum FastPathResponse {
    static func write(
        _ context: ChannelHandlerContext, _ status: HTTPResponse.Status, _ headers: HTTPFields, _ bytes: [UInt8],
        close: Bool, dates: inout HTTPDate
    ) {
        var headers = headers
        headers[.date] = dates.now()
        headers[.server] = "mdmconf"
        if close { headers[.connection] = "close" }
        context.write(NIOAny(HTTPResponsePart.head(HTTPResponse(status: status, headerFields: headers))), promise: nil)
        if !bytes.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            context.write(NIOAny(HTTPResponsePart.body(buffer)), promise: nil)
        }
        let end = NIOAny(HTTPResponsePart.end(nil))
        if close {
            let channel = context.channel
            context.writeAndFlush(end).whenComplete { _ in channel.close(promise: nil) }
        } else {
            context.writeAndFlush(end, promise: nil)
        }
    }
}

/// The `Date` header's IMF-fixdate of now, formatted once per second (one per connection).
struct HTTPDate {
    private var cache: (second: Int, text: String) = (-1, "")

    mutating func now() -> String {
        let now = time(nil)
        if Int(now) == cache.second { return cache.text }
        var parts = tm()
        var seconds = now
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let text =
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        cache = (Int(now), text)
        return text
    }
}

/// The monotonic clock in nanoseconds.
enum MonotonicClock {
    static var nanoseconds: UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}

/// The answers the fast paths write, in the series Hummingbird's `MetricsMiddleware` writes for their routes.
enum FastPathMetrics {
    static let config = RouteSeries(route: "/v1/apps/{bundleId}/config", method: "GET", usual: [200, 304])
    static let updateCheck = RouteSeries(route: "/v1/update-check", method: "POST", usual: [200, 404, 422])
    static let checkIn = RouteSeries(route: "/v1/checkin", method: "POST", usual: [200, 503])
}

/// One route's series by status: the usual statuses made once, any other (a rare refusal) when it happens.
struct RouteSeries: Sendable {
    let route: String
    let method: String
    private let usual: [Int: RouteMetrics]

    init(route: String, method: String, usual statuses: [Int]) {
        self.route = route
        self.method = method
        usual = Dictionary(
            uniqueKeysWithValues: statuses.map { ($0, RouteMetrics(route: route, method: method, status: String($0))) })
    }

    func record(status: HTTPResponse.Status, nanoseconds: UInt64) {
        (usual[status.code] ?? RouteMetrics(route: route, method: method, status: String(status.code)))
            .record(nanoseconds: nanoseconds)
    }
}

/// One route's request counter and duration timer for one status, as Hummingbird's `MetricsMiddleware` names them,
/// for answers written by a fast path.
struct RouteMetrics: Sendable {
    let requests: Counter
    let duration: Metrics.Timer

    init(route: String, method: String, status: String) {
        let dimensions = [
            ("http.route", route), ("http.request.method", method), ("http.response.status_code", status),
        ]
        requests = Counter(label: "hb.requests", dimensions: dimensions)
        duration = Metrics.Timer(
            label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
    }

    func record(nanoseconds: UInt64) {
        requests.increment()
        duration.recordNanoseconds(Int64(truncatingIfNeeded: nanoseconds))
    }
}
