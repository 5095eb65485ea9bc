import AdminUI
import CivilTime
import Fleet
import Foundation
import HTTPTypes
import Hummingbird
import MDMConf
import NIOConcurrencyHelpers
import NIOCore
import PropertyList
import UpdatePolicy

/// `/admin`: the admin page's routes (*The admin page*). Handlers check the session and CSRF token, read parameters
/// and hand the library's answers to `AdminSite` to render; no decision, validation or diff is made here.
struct AdminRoutes: Sendable {
    let catalogs: CatalogStore
    let fleet: FleetService
    let options: ServerOptions
    let site = AdminSite()
    let sessions: AdminSessions
    let counts = FleetCountsCache()

    static let sessionCookie = "mdmconf_session"
    static let loginCookie = "mdmconf_login"

    init(catalogs: CatalogStore, fleet: FleetService, options: ServerOptions) {
        self.catalogs = catalogs
        self.fleet = fleet
        self.options = options
        self.sessions = AdminSessions(lifetime: options.adminSessionLifetime, clock: options.clock)
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("/admin") { request, _ in try await page(request) { state, chrome in await overview(state, chrome) }
        }
        router.get("/admin/style.css") { _, _ in stylesheet() }
        router.get("/admin/login") { request, _ in loginPage(request, problem: nil) }
        router.post("/admin/login") { request, _ in await login(request) }
        router.post("/admin/logout") { request, _ in try await logout(request) }
        router.get("/admin/apps/:id") { request, context in
            let id = context.parameters.get("id") ?? ""
            let device = query(request)["device"]
            return try await page(request) { state, chrome in
                site.app(id, device: device, snapshot(state), chrome: chrome).map { html($0) }
                    ?? notFound("No app '\(id)' in the catalog", chrome)
            }
        }
        router.get("/admin/validate") { request, _ in
            try await page(request) { state, chrome in
                html(
                    site.validate(
                        app: query(request)["app"], upload: nil, text: "", problem: nil, snapshot(state),
                        readerOptions: options.readerOptions, chrome: chrome))
            }
        }
        router.post("/admin/validate") { request, _ in try await validate(request) }
        router.get("/admin/update") { request, _ in
            try await page(request) { state, chrome in
                html(site.update(values: query(request), snapshot(state), chrome: chrome))
            }
        }
        router.get("/admin/policy") { request, _ in
            try await page(request) { state, chrome in
                html(site.policy(values: query(request), snapshot(state), chrome: chrome))
            }
        }
        router.get("/admin/fleet") { request, _ in try await fleetPage(request) }
        router.get("/admin/fleet/devices/:id") { request, context in
            try await devicePage(request, context.parameters.get("id") ?? "")
        }
        router.get("/admin/history") { request, _ in try await historyPage(request) }
        router.get("/admin/events") { request, _ in try await eventsPage(request) }
        router.get("/admin/history/:number") { request, context in
            try await generationPage(request, context.parameters.get("number").flatMap { Int($0) })
        }
        router.get("/admin/history/:number/rollback") { request, context in
            try await rollbackPage(request, context.parameters.get("number").flatMap { Int($0) })
        }
        router.post("/admin/history/:number/rollback") { request, context in
            try await rollback(request, context.parameters.get("number").flatMap { Int($0) })
        }
        router.get("/admin/rollout") { request, _ in try await rolloutPage(request) }
        router.post("/admin/rollout/:number") { request, context in
            try await rolloutStep(request, context.parameters.get("number").flatMap { Int($0) })
        }
    }

    // MARK: Access

    /// The signed-in caller of a page: their session (made on the fly in development mode), or the response that
    /// sends them to log in.
    private struct Access {
        var chrome: AdminChrome
        var session: AdminSessions.Session
        /// A `Set-Cookie` for a development-mode session made by this request.
        var setCookie: String?
    }

    private func access(_ request: Request, state: CatalogState) -> Result<Access, Refusal> {
        let development = state.catalog.tokens == nil
        if let session = sessions.session(request.cookies[Self.sessionCookie]?.value) {
            return .success(Access(chrome: chrome(state, csrf: session.csrf), session: session, setCookie: nil))
        }
        guard development else {
            let next = request.uri.path + (request.method == .get ? request.uri.query.map { "?" + $0 } ?? "" : "")
            return .failure(Refusal(response: redirect("/admin/login?next=" + FormEncoding.escape(next))))
        }
        let (id, session) = sessions.open()
        return .success(
            Access(chrome: chrome(state, csrf: session.csrf), session: session, setCookie: sessionCookie(id)))
    }

    private func chrome(_ state: CatalogState, csrf: String?) -> AdminChrome {
        AdminChrome(
            development: state.catalog.tokens == nil, csrf: csrf, signedIn: csrf != nil, fleet: fleet.store != nil,
            host: "\(options.host):\(options.port)", generation: state.generation)
    }

    /// Runs a page handler for a signed-in caller.
    private func page(_ request: Request, _ body: (CatalogState, AdminChrome) async -> Response) async throws
        -> Response
    {
        let state = catalogs.current
        let access = try self.access(request, state: state).get()
        let clock = ContinuousClock()
        let start = clock.now
        var response = await body(state, access.chrome)
        // The server-side time of the page (queries and rendering), for the page budget of *The admin page*.
        let elapsed = clock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        response.headers[Answer.fieldName("Server-Timing")] = "render;dur=\((milliseconds * 1000).rounded() / 1000)"
        if let cookie = access.setCookie { response.headers[values: .setCookie].append(cookie) }
        return response
    }

    /// A changing form's caller: signed in, and the form's `csrf` field equal to their session's token.
    private func form(_ request: Request) async -> Result<(CatalogState, AdminChrome, [UInt8]), Refusal> {
        let state = catalogs.current
        let access: Access
        switch self.access(request, state: state) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let found): access = found
        }
        let body: [UInt8]
        switch await Answer.body(of: request, limit: state.catalog.settings.maxBodySize) {
        case .success(let bytes): body = bytes
        case .failure:
            return .failure(
                Refusal(
                    response: problem(
                        .contentTooLarge, "Too large",
                        "The form is over the limit of \(state.catalog.settings.maxBodySize) bytes.", access.chrome)))
        }
        let csrf: String?
        if let boundary = request.headers[.contentType].flatMap(FormEncoding.boundary(contentType:)) {
            csrf = FormEncoding.multipart(body, boundary: boundary)?.last { $0.name == "csrf" }?.text
        } else {
            csrf = FormEncoding.urlEncoded(body)?["csrf"]
        }
        // A development-mode session made by this very request cannot have sent a form.
        guard access.setCookie == nil, AdminSessions.sameToken(csrf, access.session.csrf) else {
            return .failure(
                Refusal(
                    response: problem(
                        .forbidden, "Form expired",
                        "The form's security token is missing or wrong (a form from another site, or from a session that has ended). Open the page again and resubmit.",
                        access.chrome)))
        }
        return .success((state, access.chrome, body))
    }

    private func sessionCookie(_ id: String) -> String {
        cookie(Self.sessionCookie, id, maxAge: Int(sessions.lifetime))
    }

    private func cookie(_ name: String, _ value: String, maxAge: Int) -> String {
        var text = "\(name)=\(value); Path=/admin; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
        if !ServerOptions.isLoopback(options.host) { text += "; Secure" }
        return text
    }

    // MARK: Login

    func loginPage(_ request: Request, problem: String?, status: HTTPResponse.Status = .ok) -> Response {
        let state = catalogs.current
        if state.catalog.tokens == nil { return redirect("/admin") }
        let token = AdminSessions.randomHex()
        let next = Self.safeNext(query(request)["next"])
        var response = html(
            site.login(next: next, loginCSRF: token, problem: problem, chrome: chrome(state, csrf: nil)),
            status: status)
        response.headers[values: .setCookie].append(cookie(Self.loginCookie, token, maxAge: 3600))
        return response
    }

    func login(_ request: Request) async -> Response {
        let state = catalogs.current
        if state.catalog.tokens == nil { return redirect("/admin") }
        let fields: [String: String]
        switch await Answer.body(of: request, limit: 16 * 1024) {
        case .success(let bytes): fields = FormEncoding.urlEncoded(bytes) ?? [:]
        case .failure: fields = [:]
        }
        guard let expected = request.cookies[Self.loginCookie]?.value,
            AdminSessions.sameToken(fields["csrf"], expected)
        else {
            return loginPage(
                request, problem: "The login form expired or came from another site. Try again.", status: .forbidden)
        }
        let token = (fields["token"] ?? "").trimmingFormSpaces
        switch state.catalog.scope(ofBearer: token) {
        case .admin?:
            let (id, _) = sessions.open()
            var response = redirect(Self.safeNext(fields["next"]))
            response.headers[values: .setCookie].append(sessionCookie(id))
            response.headers[values: .setCookie].append(cookie(Self.loginCookie, "", maxAge: 0))
            return response
        case .device?, .mdm?:
            return loginPage(
                request, problem: "That is a device token or an MDM token: only admin tokens can open the admin page.",
                status: .forbidden)
        case nil:
            return loginPage(
                request, problem: "That token is not in this catalog's tokens.plist.", status: .unauthorized)
        }
    }

    func logout(_ request: Request) async throws -> Response {
        _ = try await form(request).get()
        sessions.close(request.cookies[Self.sessionCookie]?.value)
        var response = redirect(catalogs.current.catalog.tokens == nil ? "/admin" : "/admin/login")
        response.headers[values: .setCookie].append(cookie(Self.sessionCookie, "", maxAge: 0))
        return response
    }

    /// Only a path of this admin page may follow a login (no open redirect).
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/admin"), !next.hasPrefix("//"), !next.contains("\\") else { return "/admin" }
        return next
    }

    // MARK: Pages

    func snapshot(_ state: CatalogState) -> CatalogSnapshot {
        CatalogSnapshot(
            catalog: state.catalog, generation: state.generation, loadedAt: state.loadedAt,
            reloadError: state.lastReloadError.map { ($0.at, $0.diagnostics) }, source: catalogs.path,
            followsStore: options.followStoreInterval != nil)
    }

    func overview(_ state: CatalogState, _ chrome: AdminChrome) async -> Response {
        var fleetCounts: FleetCounts?
        if let store = fleet.store {
            let query = FleetQuery(store: store, evaluator: state.complianceEvaluator(now: .now))
            fleetCounts = await counts.counts(query: query, generation: state.generation)
        }
        return html(site.overview(snapshot(state), fleet: fleetCounts, chrome: chrome))
    }

    func validate(_ request: Request) async throws -> Response {
        let (state, chrome, body): (CatalogState, AdminChrome, [UInt8]) = try await form(request).get()
        var app: String?
        var text = ""
        var upload: AdminSite.Upload?
        var problem: String?
        if let boundary = request.headers[.contentType].flatMap(FormEncoding.boundary(contentType:)) {
            guard let parts = FormEncoding.multipart(body, boundary: boundary) else {
                return self.problem(.badRequest, "Bad form", "The upload is not a well-formed multipart form.", chrome)
            }
            app = parts.last { $0.name == "app" }?.text
            text = parts.last { $0.name == "plist" }?.text ?? ""
            if let file = parts.last(where: { $0.name == "file" }), !file.bytes.isEmpty {
                upload = AdminSite.Upload(file: Self.uploadName(file.filename), bytes: file.bytes)
            }
        } else if let fields = FormEncoding.urlEncoded(body) {
            app = fields["app"]
            text = fields["plist"] ?? ""
        }
        if upload == nil {
            if text.utf8.contains(where: { $0 != 32 && $0 != 10 && $0 != 13 && $0 != 9 }) {
                upload = AdminSite.Upload(file: "pasted.plist", bytes: Array(text.utf8))
            } else {
                problem = "paste a configuration or choose a file"
            }
        }
        return html(
            site.validate(
                app: app, upload: upload, text: text, problem: problem, snapshot(state),
                readerOptions: options.readerOptions, chrome: chrome))
    }

    /// The last path component of an uploaded file's name, kept to printable characters.
    static func uploadName(_ name: String?) -> String {
        let last = (name ?? "").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let kept = String(last.unicodeScalars.filter { $0.value >= 32 && $0.value != 127 }.prefix(200))
        return kept.isEmpty ? "upload.plist" : kept
    }

    private func fleetQuery(_ state: CatalogState) -> FleetQuery? {
        fleet.store.map { FleetQuery(store: $0, evaluator: state.complianceEvaluator(now: .now)) }
    }

    func fleetPage(_ request: Request) async throws -> Response {
        try await page(request) { state, chrome in
            guard let query = fleetQuery(state) else { return fleetDisabled(chrome) }
            let values = self.query(request)
            var filter = FleetFilter()
            if let app = values["app"], !app.isEmpty { filter.app = app }
            if let status = values["status"], !status.isEmpty {
                guard let parsed = FleetFilter.Status(rawValue: status) else {
                    return problem(
                        .badRequest, "Bad filter", "Compliance must be compliant, noncompliant or silent.", chrome)
                }
                filter.status = parsed
            }
            if let decision = values["decision"], !decision.isEmpty {
                guard let parsed = Outcome(rawValue: decision) else {
                    return problem(
                        .badRequest, "Bad filter",
                        "The decision must be one of ok, recommended, required, unsupported, error.", chrome)
                }
                filter.decision = parsed
            }
            if let generation = values["generation"], !generation.isEmpty {
                guard let number = Int(generation), number >= 1 else {
                    return problem(.badRequest, "Bad filter", "The generation must be a generation number.", chrome)
                }
                filter.generation = number
            }
            let after = values["page"].flatMap { CatalogDevice.isValidID($0) ? $0 : nil }
            let counts = await counts.counts(query: query, generation: state.generation)
            return html(
                await site.fleet(
                    query: query, filter: filter, after: after, counts: counts, snapshot(state), chrome: chrome,
                    generations: state.rollout.map { [state.generation, $0.state.generation] } ?? []))
        }
    }

    func devicePage(_ request: Request, _ id: String) async throws -> Response {
        try await page(request) { state, chrome in
            guard let query = fleetQuery(state) else { return fleetDisabled(chrome) }
            guard CatalogDevice.isValidID(id) else { return notFound("No device '\(id)'", chrome) }
            do {
                return try await site.device(id, query: query, snapshot(state), chrome: chrome).map { html($0) }
                    ?? notFound("No device '\(id)' in the store or devices.plist", chrome)
            } catch {
                return storeProblem(error, chrome)
            }
        }
    }

    private var history: CatalogHistory? { fleet.store.map { CatalogHistory(store: $0) } }

    func historyPage(_ request: Request) async throws -> Response {
        try await page(request) { state, chrome in
            guard let history else { return fleetDisabled(chrome) }
            return html(await site.history(history, snapshot(state), chrome: chrome))
        }
    }

    func eventsPage(_ request: Request) async throws -> Response {
        try await page(request) { state, chrome in
            guard let store = fleet.store else { return fleetDisabled(chrome) }
            let endpoints = fleet.eventEndpoints ?? state.catalog.events
            return html(
                await site.events(EventOutbox(store: store), endpoints: endpoints, snapshot(state), chrome: chrome))
        }
    }

    func rolloutPage(_ request: Request) async throws -> Response {
        try await page(request) { state, chrome in
            guard let history else { return fleetDisabled(chrome) }
            do {
                let rollout = try await CatalogRollouts(store: history.store).newest()
                return html(try await rolloutPanel(rollout, history: history, state: state, chrome: chrome))
            } catch {
                return storeProblem(error, chrome)
            }
        }
    }

    /// The panel of `rollout`, its health measured against the catalogs served (or loaded from the store).
    private func rolloutPanel(
        _ rollout: CatalogRollout?, history: CatalogHistory, state: CatalogState, chrome: AdminChrome,
        done: String? = nil, problem: String? = nil
    ) async throws -> String {
        var health: RolloutHealth?
        if let rollout, let (base, new) = try await rolloutCatalogs(rollout, history: history, state: state) {
            health = try await RolloutHealth.measure(rollout, store: history.store, base: base, new: new, now: .now)
        }
        return site.rollout(rollout, health: health, done: done, problem: problem, snapshot(state), chrome: chrome)
    }

    /// The base and new catalogs of `rollout`: those served when this server serves it, else loaded from the store.
    private func rolloutCatalogs(_ rollout: CatalogRollout, history: CatalogHistory, state: CatalogState) async throws
        -> (Catalog, Catalog)?
    {
        if let served = state.rollout, served.state.generation == rollout.generation,
            state.generation == rollout.base
        {
            return (state.catalog, served.state.catalog)
        }
        return try await AdminSite.catalogs(of: rollout, history: history, loader: catalogs.loader)
    }

    /// A step of the rollout of generation `number` from the panel's forms (`action`, with the CSRF token).
    func rolloutStep(_ request: Request, _ number: Int?) async throws -> Response {
        let (state, chrome, body): (CatalogState, AdminChrome, [UInt8]) = try await form(request).get()
        guard let history else { return fleetDisabled(chrome) }
        let action = FormEncoding.urlEncoded(body)?["action"] ?? ""
        let rollouts = CatalogRollouts(store: history.store)
        do {
            guard let number, let rollout = try await rollouts.rollout(of: number) else {
                return notFound("No rollout of that generation", chrome)
            }
            var done: String?
            var problem: String?
            var after: CatalogRollout? = rollout
            do {
                let new = try await rolloutCatalogs(rollout, history: history, state: state)?.1
                let change = try await rollouts.perform(
                    action, on: rollout,
                    author: state.catalog.tokens == nil ? "admin page (development mode)" : "admin page",
                    subscriptions: new.flatMap { fleet.subscriptions($0) })
                after = change.rollout
                switch change {
                case .aborted(_, let generation):
                    done =
                        "Aborted: generation \(generation.number) publishes generation \(rollout.base)'s content again, for every device."
                case .stepped(let stepped):
                    done =
                        stepped.phase == .completed
                        ? "Completed: generation \(stepped.generation) is served to every device."
                        : "Generation \(stepped.generation) is \(stepped.phase.rawValue) at \(stepped.plan.label(ofRing: stepped.ring))."
                }
                if options.followStoreInterval == nil {
                    done =
                        (done ?? "")
                        + " Replicas that follow the store serve it; this server serves the folder \(catalogs.path)."
                }
            } catch let error as RolloutError {
                problem = error.message
            }
            let page = try await rolloutPanel(
                after, history: history, state: state, chrome: chrome, done: done, problem: problem)
            return html(page, status: problem == nil ? .ok : .conflict)
        } catch {
            return storeProblem(error, chrome)
        }
    }

    func generationPage(_ request: Request, _ number: Int?) async throws -> Response {
        try await page(request) { state, chrome in
            guard let history else { return fleetDisabled(chrome) }
            guard let number else { return notFound("No such generation", chrome) }
            do {
                return try await site.generation(
                    number, history: history, loader: catalogs.loader, snapshot(state), chrome: chrome
                ).map { html($0) } ?? notFound("No generation \(number) in the store", chrome)
            } catch {
                return storeProblem(error, chrome)
            }
        }
    }

    func rollbackPage(_ request: Request, _ number: Int?) async throws -> Response {
        try await page(request) { state, chrome in
            guard let history else { return fleetDisabled(chrome) }
            guard let number else { return notFound("No such generation", chrome) }
            do {
                return try await site.rollback(
                    number, history: history, loader: catalogs.loader, done: nil, problem: nil, snapshot(state),
                    chrome: chrome
                ).map { html($0) } ?? notFound("No generation \(number) in the store", chrome)
            } catch {
                return storeProblem(error, chrome)
            }
        }
    }

    func rollback(_ request: Request, _ number: Int?) async throws -> Response {
        let (state, chrome, body): (CatalogState, AdminChrome, [UInt8]) = try await form(request).get()
        guard let history else { return fleetDisabled(chrome) }
        guard let number else { return notFound("No such generation", chrome) }
        let fields = FormEncoding.urlEncoded(body) ?? [:]
        let message = (fields["message"] ?? "").trimmingFormSpaces
        do {
            let outcome = try await AdminSite.rollBack(
                to: number, history: history, loader: catalogs.loader,
                author: state.catalog.tokens == nil ? "admin page (development mode)" : "admin page",
                message: message.isEmpty ? "rollback to generation \(number)" : String(message.prefix(500)),
                server: fleet.replica)
            var done: String?
            var problem: String?
            var current = state
            switch outcome {
            case .published(let generation, let catalog):
                if options.followStoreInterval != nil {
                    catalogs.install(
                        .success(catalog), generation: generation.number, publishedAt: generation.createdAt)
                    current = catalogs.current
                    done =
                        "Generation \(number) is published again as generation \(generation.number), and this server serves it now."
                } else {
                    done =
                        "Generation \(number) is published again as generation \(generation.number). Replicas that follow the store serve it; this server keeps serving the folder \(catalogs.path)."
                }
            case .alreadyCurrent(let generation):
                done =
                    "Nothing to do: generation \(generation.number), the newest, already has generation \(number)'s content."
            case .refused(let why):
                problem = why
            }
            let chrome = self.chrome(current, csrf: chrome.csrf)
            return try await site.rollback(
                number, history: history, loader: catalogs.loader, done: done, problem: problem, snapshot(current),
                chrome: chrome
            ).map { html($0, status: problem == nil ? .ok : .unprocessableContent) }
                ?? notFound("No generation \(number) in the store", chrome)
        } catch {
            return storeProblem(error, chrome)
        }
    }

    // MARK: Responses

    /// The query string's fields (`+` is a space), or none when it is malformed.
    func query(_ request: Request) -> [String: String] {
        request.uri.query.flatMap { FormEncoding.urlEncoded(Array($0.utf8)) } ?? [:]
    }

    /// Headers of every admin response: no caching, no framing, no scripts, styles only from this server.
    static func securityHeaders(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] =
            "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        headers[.xContentTypeOptions] = "nosniff"
        headers[Answer.fieldName("Referrer-Policy")] = "no-referrer"
        headers[Answer.fieldName("X-Frame-Options")] = "DENY"
        headers[.cacheControl] = "no-store"
    }

    func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        Self.securityHeaders(&headers)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    func redirect(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        Self.securityHeaders(&headers)
        return Response(status: .seeOther, headers: headers)
    }

    func stylesheet() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/css; charset=utf-8"
        headers[.xContentTypeOptions] = "nosniff"
        headers[.cacheControl] = "max-age=300"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: AdminStylesheet.css)))
    }

    func problem(_ status: HTTPResponse.Status, _ heading: String, _ message: String, _ chrome: AdminChrome)
        -> Response
    {
        html(site.problem(heading: heading, message: message, chrome: chrome), status: status)
    }

    func notFound(_ message: String, _ chrome: AdminChrome) -> Response {
        problem(.notFound, "Not found", message, chrome)
    }

    func fleetDisabled(_ chrome: AdminChrome) -> Response {
        problem(
            .notFound, "No fleet store",
            "This server runs with --store none: it keeps no fleet state or catalog history.", chrome)
    }

    func storeProblem(_ error: any Error, _ chrome: AdminChrome) -> Response {
        var response = problem(
            .serviceUnavailable, "The store cannot be read",
            (error as? FleetStoreError)?.message ?? "\(error)", chrome)
        response.headers[.retryAfter] = "2"
        return response
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line breaks (a pasted token often ends with a newline).
    fileprivate var trimmingFormSpaces: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
