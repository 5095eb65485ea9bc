import CivilTime
import Foundation
import MDMConf
import MDMDiagnostics
import Mustache

/// What a page shows of the served catalog: the state one request read once, so a page never mixes two catalogs.
public struct CatalogSnapshot: Sendable {
    /// The catalog served.
    public var catalog: Catalog
    /// Its generation: the reload count for a folder, the stored generation with `--from-store`.
    public var generation: Int
    /// When it was loaded.
    public var loadedAt: Instant
    /// The last reload that failed after the last one that worked: when, and its findings.
    public var reloadError: (at: Instant, diagnostics: [Diagnostic])?
    /// The folder served, or the store whose generations are followed.
    public var source: String
    /// True with `serve --from-store`: a rollback is installed on this server at once.
    public var followsStore: Bool

    /// A snapshot of what one request read.
    public init(
        catalog: Catalog, generation: Int, loadedAt: Instant, reloadError: (at: Instant, diagnostics: [Diagnostic])?,
        source: String, followsStore: Bool
    ) {
        (self.catalog, self.generation, self.loadedAt, self.reloadError) = (catalog, generation, loadedAt, reloadError)
        (self.source, self.followsStore) = (source, followsStore)
    }
}

/// The parts of every page that depend on the request: who is signed in, the CSRF token of their session, the
/// development-mode banner.
public struct AdminChrome: Sendable {
    /// True in development mode (no tokens file): open without login, with a banner.
    public var development: Bool
    /// The session's CSRF token, for every form that changes something; nil on the login page.
    public var csrf: String?
    /// Whether a session is signed in (the log-out button).
    public var signedIn: Bool
    /// Whether the server has a fleet store (the fleet and history pages).
    public var fleet: Bool
    /// Where the server listens, for the banner.
    public var host: String
    /// The generation served, in the header.
    public var generation: Int
    /// The time the page was made, in the footer.
    public var now: String

    /// The chrome of one request's page; `now` is when it was made.
    public init(
        development: Bool, csrf: String?, signedIn: Bool, fleet: Bool, host: String, generation: Int,
        now: Instant = .now
    ) {
        (self.development, self.csrf, self.signedIn, self.fleet, self.host) = (development, csrf, signedIn, fleet, host)
        self.generation = generation
        self.now = now.description
    }
}

/// The admin page (*The admin page*): each page built from the library's own answers (validation, decisions, policy
/// answers, compliance, diffs) and rendered with the Mustache templates of `AdminTemplates`. Builds HTML only:
/// sessions, CSRF checks and HTTP live in the server.
public struct AdminSite: Sendable {
    let library: MustacheLibrary
    let generations = LoadedGenerations()

    /// The site with its templates parsed.
    public init() {
        var library = MustacheLibrary()
        for (name, text) in AdminTemplates.all {
            // The templates are part of the binary and parsed by a test: a failure here is a programming error.
            do { try library.register("{{% CONTENT_TYPE: HTML}}" + text, named: name) } catch {
                preconditionFailure("admin template \(name) does not parse: \(error)")
            }
        }
        self.library = library
    }

    /// Renders `template` with `page` (any value whose properties the template names) under the chrome.
    func render(_ template: String, _ page: some Any, chrome: AdminChrome, title: String, nav: String) -> String {
        let context: [String: Any] = [
            "page": page, "chrome": chrome, "title": title, "nav": [nav: true],
        ]
        return library.render(MustacheStack(values: [context, page]), withTemplate: template) ?? ""
    }

    /// A page that only says something went wrong (404, a store that cannot be read).
    public func problem(heading: String, message: String, chrome: AdminChrome) -> String {
        struct Page { var heading: String; var message: String }
        return render("problem", Page(heading: heading, message: message), chrome: chrome, title: heading, nav: "")
    }

    /// The login form: it returns to `next` after a good token, carries the login CSRF token, and says `problem`
    /// (a wrong token) when there is one.
    public func login(next: String, loginCSRF: String, problem: String?, chrome: AdminChrome) -> String {
        struct Page { var next: String; var loginCSRF: String; var problem: String? }
        return render(
            "login", Page(next: next, loginCSRF: loginCSRF, problem: problem), chrome: chrome, title: "Log in",
            nav: "")
    }
}

/// Two objects a template reads as one: the chrome (`chrome.…`, `title`, `nav.…`) and the page's own values.
struct MustacheStack: MustacheParent {
    let values: [Any]

    func child(named name: String) -> Any? {
        for value in values {
            if let dictionary = value as? [String: Any] {
                if let found = dictionary[name] { return found }
                continue
            }
            if let found = Mirror(reflecting: value).children.first(where: { $0.label == name })?.value {
                return unwrap(found)
            }
        }
        return nil
    }

    private func unwrap(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first?.value
    }
}

/// A list of diagnostics as the findings partial shows them: a table and the CLI's text with source excerpts.
struct FindingsView {
    struct Row {
        var place: String, severity: String, code: String, message: String, keyPath: String, hint: String
    }

    var any: Bool, summary: String, rows: [Row], text: String, open: Bool

    init(_ diagnostics: [Diagnostic], sources: [String: SourceText], open: Bool = false) {
        any = !diagnostics.isEmpty
        let errors = diagnostics.count(of: .error)
        let warnings = diagnostics.count(of: .warning)
        let infos = diagnostics.count - errors - warnings
        summary = [
            errors > 0 ? "\(errors) error\(errors == 1 ? "" : "s")" : nil,
            warnings > 0 ? "\(warnings) warning\(warnings == 1 ? "" : "s")" : nil,
            infos > 0 ? "\(infos) note\(infos == 1 ? "" : "s")" : nil,
        ].compactMap { $0 }.joined(separator: ", ")
        rows = diagnostics.map { diagnostic in
            var place = diagnostic.file.map { ($0 as NSString).lastPathComponent } ?? ""
            if let line = diagnostic.line { place += ":\(line):\(diagnostic.column ?? 1)" }
            return Row(
                place: place, severity: diagnostic.severity.rawValue, code: diagnostic.code.description,
                message: diagnostic.message, keyPath: diagnostic.keyPath ?? "", hint: diagnostic.hint ?? "")
        }
        let renderer = TextRenderer(options: RenderOptions(color: false, sources: sources))
        text = diagnostics.map { renderer.render($0) }.joined()
        self.open = open
    }

    /// The sources of the files `diagnostics` point into, read from disk where they are catalog files.
    static func sources(of diagnostics: [Diagnostic], under folder: String) -> [String: SourceText] {
        var sources: [String: SourceText] = [:]
        for file in Set(diagnostics.compactMap(\.file)) where file.hasPrefix(folder) {
            if let data = FileManager.default.contents(atPath: file), data.count <= 16 << 20 {
                sources[file] = SourceText(Array(data))
            }
        }
        return sources
    }
}

/// Stored generations loaded as catalogs, for diffs (a generation's content never changes, so a loaded one is
/// kept; the few most recent only).
final class LoadedGenerations: @unchecked Sendable {
    private let lock = NSLock()
    private var catalogs: [Int: Catalog?] = [:]
    private var order: [Int] = []
    static let limit = 8

    /// Generation `number`'s catalog, or nil when its files do not load.
    func catalog(_ number: Int, files: CatalogFiles, loader: CatalogLoader) -> Catalog? {
        if let found = lock.withLock({ catalogs[number] }) { return found }
        let loaded = try? loader.load(files: files).get()
        lock.withLock {
            if catalogs[number] == nil {
                order.append(number)
                if order.count > Self.limit { catalogs[order.removeFirst()] = nil }
            }
            catalogs[number] = .some(loaded)
        }
        return loaded
    }

    /// The diff of two generations (`old` nil: against an empty catalog), with who gets different bytes when both
    /// load.
    func diff(old: (Int, CatalogFiles)?, new: (Int, CatalogFiles), loader: CatalogLoader) -> CatalogDiff {
        let oldCatalog = old.flatMap { catalog($0.0, files: $0.1, loader: loader) }
        let newCatalog = catalog(new.0, files: new.1, loader: loader)
        return CatalogDiff.compare(
            old?.1 ?? CatalogFiles(), new.1, oldCatalog: oldCatalog, newCatalog: newCatalog)
    }
}
