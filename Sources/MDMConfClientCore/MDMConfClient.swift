import ConfigSchema
import Foundation
import MDMDiagnostics
import PropertyList
import UpdatePolicy

/// The app side of mdmconf: one call at launch that checks in, refreshes the managed configuration when the
/// server says it is stale, and answers "may I continue, or must I update?", with a cache that keeps the app
/// working offline.
///
/// ```swift
/// let client = MDMConfClient(server: URL(string: "https://mdmconf.example.com")!, token: token,
///                            app: "com.example.field", cache: cachesFolder)
/// let launch = await client.launch(version: "3.2.1", platform: "ios", osVersion: "17.4.1")
/// ```
///
/// One launch runs at a time per client (it is an actor); every launch is bounded by ``timeout`` in total.
public actor MDMConfClient {
    public nonisolated let server: URL
    public nonisolated let app: String
    /// The inventory device to check in as. With a device token it may be nil (the token names the device);
    /// with an admin token or a development server it must be set.
    public nonisolated let device: String?
    /// Seconds a launch may spend on the network in total (check-in and configuration fetch).
    public nonisolated let timeout: Double
    private let token: String?
    private let transport: any ClientTransport
    private let cache: ClientCache
    /// The platform of the last launch: an Android device fetches the app's Android configuration, as JSON.
    private var platform: String?

    public init(
        server: URL, token: String?, app: String, cache: URL, device: String? = nil, timeout: Double = 5,
        transport: any ClientTransport
    ) {
        (self.server, self.token, self.app, self.device, self.timeout) = (server, token, app, device, timeout)
        self.transport = transport
        self.cache = ClientCache(folder: cache, app: app)
    }

    /// One app launch: `POST /v1/checkin`, then `GET /v1/apps/{app}/config` with `If-None-Match` only when the
    /// answer says `stale`. Never throws: what went wrong is ``LaunchResult/problem``, and the cached
    /// configuration and decision stand in for what could not be fetched.
    ///
    /// - Parameters:
    ///   - managedConfiguration: the configuration the MDM pushed to the app (`com.apple.configuration.managed`)
    ///     with the app's schema; its findings are sent as `configError`.
    ///   - now: the device clock (for the check-in's `at`, ages and offline deadlines).
    public func launch(
        version: String, build: String? = nil, platform: String, osVersion: String? = nil, deviceModel: String? = nil,
        locale: String? = nil, timeZone: String? = nil, channel: String? = nil, deferralsUsed: Int? = nil,
        managedConfiguration: ManagedConfiguration? = nil, now: Date = Date()
    ) async -> LaunchResult {
        self.platform = platform
        let loaded = cache.load()
        var state = loaded.state ?? CachedState()
        let configError = managedConfiguration?.configError
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(timeout * 1000)))

        let checkIn = checkInRequest(
            version: version, build: build, platform: platform, osVersion: osVersion, deviceModel: deviceModel,
            locale: locale, timeZone: timeZone, channel: channel, deferralsUsed: deferralsUsed,
            configETag: state.config?.etag, configError: configError, now: now)

        func offline(_ problem: LaunchProblem) -> LaunchResult {
            LaunchResult(
                configuration: state.config.flatMap {
                    Self.configuration($0, source: .cache, isCurrent: false, now: now)
                },
                update: state.decision.flatMap {
                    Self.offlineAdvice($0, version: version, osVersion: osVersion, now: now)
                },
                problem: problem, catalogGeneration: nil, configError: configError)
        }

        let response: ClientResponse
        do {
            response = try await send(checkIn, before: deadline)
        } catch {
            return offline(.unreachable(Self.describe(error, timeout: timeout)))
        }
        switch response.status {
        case 200: break
        case 401, 403:
            return LaunchResult(
                configuration: nil, update: nil,
                problem: .refused(status: response.status, message: Self.errorMessage(response)),
                catalogGeneration: nil, configError: configError)
        case 400..<500:
            return offline(.rejected(status: response.status, message: Self.errorMessage(response)))
        default:
            return offline(.badAnswer("HTTP \(response.status) to the check-in: \(Self.errorMessage(response))"))
        }
        guard let answer = try? JSONDecoder().decode(CheckInAnswer.self, from: Data(response.body)),
            let mine = answer.app(app)
        else {
            return offline(.badAnswer("the check-in answer is not the documented JSON"))
        }

        var result = LaunchResult(
            configuration: nil, update: nil, problem: nil, catalogGeneration: answer.catalogGeneration,
            configError: configError)
        if let document = mine.update {
            // The decision document is read as a cached one is, from its text.
            guard
                var advice = UpdateAdvice(
                    document: document.serialized(pretty: false), source: .network, now: now)
            else {
                return offline(.badAnswer("the update decision in the check-in answer is not a decision document"))
            }
            advice.age = 0
            result.update = advice
            state.decision = CachedState.Decision(
                document: advice.document, decidedAt: advice.decidedAt, version: version, osVersion: osVersion)
        } else {
            state.decision = nil
        }

        await resolveConfiguration(mine.config.status, state: &state, into: &result, before: deadline, now: now)
        if state != loaded.state || loaded.discarded {
            do { try cache.store(state) } catch { result.cacheError = "\(error)" }
        }
        return result
    }

    /// The check-in of one launch: the app as it runs, with the configuration it holds and any error applying it.
    private func checkInRequest(
        version: String, build: String?, platform: String, osVersion: String?, deviceModel: String?,
        locale: String?, timeZone: String?, channel: String?, deferralsUsed: Int?, configETag: String?,
        configError: String?, now: Date
    ) -> ClientRequest {
        var entry: [(String, JSONValue)] = [("app", .string(app)), ("version", .string(version))]
        var body: [(String, JSONValue)] = [
            ("platform", .string(platform)),
            ("at", .string(PlistDate(secondsSince1970: now.timeIntervalSince1970.rounded(.down)).iso8601)),
        ]
        func add(_ key: String, _ value: String?, to object: inout [(String, JSONValue)]) {
            if let value { object.append((key, .string(value))) }
        }
        add("build", build, to: &entry)
        add("channel", channel, to: &entry)
        add("configETag", configETag, to: &entry)
        add("configError", configError, to: &entry)
        if let deferralsUsed { entry.append(("deferralsUsed", .integer(deferralsUsed))) }
        body.append(("apps", .array([.object(entry)])))
        add("device", device, to: &body)
        add("osVersion", osVersion, to: &body)
        add("deviceModel", deviceModel, to: &body)
        add("locale", locale, to: &body)
        add("timeZone", timeZone, to: &body)
        return ClientRequest(
            method: "POST", url: endpoint("v1/checkin"),
            headers: headers(["Content-Type": "application/json", "Accept": "application/json"]),
            body: Array(JSONValue.object(body).serialized(pretty: false).utf8))
    }

    /// The configuration a check-in answer's status calls for: none, the cached one when it is current, else
    /// fetched (`If-None-Match` with the cached ETag), with the cache as the fallback.
    private func resolveConfiguration(
        _ status: CheckInAnswer.Config.Status, state: inout CachedState, into result: inout LaunchResult,
        before deadline: ContinuousClock.Instant, now: Date
    ) async {
        switch status {
        case .none:
            state.config = nil
        case .current where state.config != nil:
            result.configuration = state.config.flatMap {
                Self.configuration($0, source: .cache, isCurrent: true, now: now)
            }
        default:
            let fetched = await fetchConfiguration(ifNoneMatch: state.config?.etag, before: deadline, now: now)
            switch fetched {
            case .fetched(let config):
                state.config = config
                result.configuration = Self.configuration(config, source: .network, isCurrent: true, now: now)
            case .notModified:
                result.configuration = state.config.flatMap {
                    Self.configuration($0, source: .cache, isCurrent: true, now: now)
                }
            case .failed(let problem):
                result.problem = problem
                result.configuration = state.config.flatMap {
                    Self.configuration($0, source: .cache, isCurrent: false, now: now)
                }
            }
        }
    }

    /// A foreground refresh without a check-in: `GET /v1/apps/{app}/config` with `If-None-Match`, the cache
    /// updated on 200. The configuration to use, from the network, from the cache (304 or failure), or nil.
    public func refreshConfiguration(now: Date = Date()) async -> (
        configuration: Configuration?, problem: LaunchProblem?, notModified: Bool
    ) {
        let loaded = cache.load()
        var state = loaded.state ?? CachedState()
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(timeout * 1000)))
        switch await fetchConfiguration(ifNoneMatch: state.config?.etag, before: deadline, now: now) {
        case .fetched(let config):
            state.config = config
            try? cache.store(state)
            return (Self.configuration(config, source: .network, isCurrent: true, now: now), nil, false)
        case .notModified:
            return (
                state.config.flatMap { Self.configuration($0, source: .cache, isCurrent: true, now: now) }, nil, true
            )
        case .failed(let problem):
            return (
                state.config.flatMap { Self.configuration($0, source: .cache, isCurrent: false, now: now) }, problem,
                false
            )
        }
    }

    // MARK: - Network

    private enum Fetch {
        case fetched(CachedState.Config)
        case notModified
        case failed(LaunchProblem)
    }

    private func fetchConfiguration(ifNoneMatch etag: String?, before deadline: ContinuousClock.Instant, now: Date)
        async -> Fetch
    {
        let android = platform?.lowercased() == "android"
        var extra = ["Accept": android ? "application/json" : "application/x-plist"]
        extra["If-None-Match"] = etag
        var query: [String] = []
        if let device {
            query.append("device=\(device.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? device)")
        }
        if android { query.append("platform=android") }
        let path = "v1/apps/\(app)/config" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let request = ClientRequest(method: "GET", url: endpoint(path), headers: headers(extra))
        let response: ClientResponse
        do {
            response = try await send(request, before: deadline)
        } catch {
            return .failed(.unreachable(Self.describe(error, timeout: timeout)))
        }
        switch response.status {
        case 304 where etag != nil:
            return .notModified
        case 200:
            guard let tag = response.header("ETag"), !tag.isEmpty else {
                return .failed(.badAnswer("the configuration came without an ETag"))
            }
            let document = Self.read(response.body)
            guard !document.hasErrors, case .dictionary? = document.root?.value else {
                let first = document.diagnostics.first { $0.severity == .error }?.message ?? "its root is not a <dict>"
                return .failed(.badAnswer("the configuration is not a plist dictionary: \(first)"))
            }
            return .fetched(
                CachedState.Config(etag: tag, fetchedAt: now, plist: String(decoding: response.body, as: UTF8.self)))
        case 401, 403:
            return .failed(.refused(status: response.status, message: Self.errorMessage(response)))
        case 400..<500:
            return .failed(.rejected(status: response.status, message: Self.errorMessage(response)))
        default:
            return .failed(.badAnswer("HTTP \(response.status) to the configuration fetch"))
        }
    }

    private nonisolated func endpoint(_ path: String) -> URL {
        var base = server.absoluteString
        if !base.hasSuffix("/") { base += "/" }
        return URL(string: base + path) ?? server
    }

    private nonisolated func headers(_ extra: [String: String]) -> [String: String] {
        var all = extra
        if let token { all["Authorization"] = "Bearer \(token)" }
        return all
    }

    /// The transport's answer, or ``DeadlinePassed`` at `deadline` (the request is then cancelled and not
    /// awaited: a server that never answers cannot hold the launch).
    private nonisolated func send(_ request: ClientRequest, before deadline: ContinuousClock.Instant) async throws
        -> ClientResponse
    {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { throw DeadlinePassed() }
        let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
        let transport = transport
        return try await Deadline.race(until: deadline) { try await transport.send(request, timeout: seconds) }
    }

    // MARK: - Answers

    /// A served configuration: an XML plist, or the JSON an Android device is served (the reader tells them apart).
    static func read(_ bytes: [UInt8]) -> PlistDocument { PropertyListReader().read(bytes, file: "configuration") }

    static func configuration(_ config: CachedState.Config, source: Source, isCurrent: Bool, now: Date)
        -> Configuration?
    {
        let document = read(Array(config.plist.utf8))
        guard !document.hasErrors, let root = document.root else { return nil }
        return Configuration(
            value: root.value, etag: config.etag, source: source, isCurrent: isCurrent, fetchedAt: config.fetchedAt,
            age: max(0, now.timeIntervalSince(config.fetchedAt)))
    }

    /// The cached decision for a launch that could not ask the server. A decision made for an older version
    /// that the app has since updated past (at or above the target version) is `ok`; an `unsupported` made for
    /// another OS version is unknown (nil: the OS was updated, and only the server knows the rule); a
    /// recommended update whose deadline has passed is `required`, as the server would decide; everything else
    /// stands, so a `required` stays required offline.
    static func offlineAdvice(_ cached: CachedState.Decision, version: String, osVersion: String?, now: Date)
        -> UpdateAdvice?
    {
        guard var advice = UpdateAdvice(document: cached.document, source: .cache, now: now) else { return nil }
        if advice.decision == .unsupported, cached.osVersion != osVersion { return nil }
        if cached.version != version, advice.decision == .recommended || advice.decision == .required,
            let target = advice.targetVersion.flatMap(AppVersion.init), let running = AppVersion(version),
            running >= target
        {
            advice.decision = .ok
            advice.urgency = "none"
            advice.reasons = ["updated_since_decision"]
        } else if advice.decision == .recommended, let deadline = advice.deadline, deadline <= now {
            advice.decision = .required
            advice.urgency = "critical"
            advice.reasons = advice.reasons.filter { $0 != "deadline_pending" } + ["deadline_passed"]
        }
        return advice
    }

    static func errorMessage(_ response: ClientResponse) -> String {
        JSON.read(response.body)?.dictionary?["error"]?.value.dictionary?["message"]?.value.string
            ?? "HTTP \(response.status)"
    }

    static func describe(_ error: any Error, timeout: Double) -> String {
        if error is DeadlinePassed { return "no answer within \(timeout.formatted()) s" }
        if let error = error as? URLError {
            return "\(error.code.rawValue == NSURLErrorTimedOut ? "timed out" : error.localizedDescription)"
        }
        return "\(error)"
    }
}

private extension Double {
    func formatted() -> String { self == rounded() ? String(Int(self)) : String(self) }
}
