import ConfigSchema
import Foundation
import MDMDiagnostics
import PropertyList

/// The part of a check-in answer (fleet.md) that concerns this client's app.
struct CheckInAnswer {
    var generation: Int?
    /// `current`, `stale` or `none`.
    var configStatus: String
    /// The decision document as JSON text; nil when the catalog has no update rules for the app.
    var update: String?

    init?(_ body: [UInt8], app: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let apps = object["apps"] as? [[String: Any]],
            let entry = apps.first(where: { $0["app"] as? String == app }),
            let config = entry["config"] as? [String: Any], let status = config["status"] as? String,
            ["current", "stale", "none"].contains(status)
        else { return nil }
        generation = object["catalogGeneration"] as? Int
        configStatus = status
        switch entry["update"] {
        case nil, is NSNull:
            update = nil
        case let document as [String: Any]:
            guard let data = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]) else { return nil }
            update = String(decoding: data, as: UTF8.self)
        default:
            return nil
        }
    }
}

extension UpdateAdvice {
    /// The advice in a decision document (update-policy.md 6.1); nil when it is not one, or its decision is
    /// `error` (which a check-in never answers with 200).
    init?(document: String, source: Source, now: Date) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any],
            let decisionText = object["decision"] as? String, let decision = UpdateDecision(rawValue: decisionText)
        else { return nil }
        func date(_ key: String) -> Date? {
            (object[key] as? String).flatMap { PlistDate(iso8601: $0) }.map { Date(timeIntervalSince1970: $0.secondsSince1970) }
        }
        let decidedAt = date("evaluatedAt") ?? now
        var message: Message?
        if let fields = object["message"] as? [String: Any] {
            message = Message(
                locale: fields["locale"] as? String ?? "", title: fields["title"] as? String, body: fields["body"] as? String)
        }
        self.init(
            decision: decision, policy: object["policy"] as? String, targetVersion: object["targetVersion"] as? String,
            deadline: date("deadline"), urgency: object["urgency"] as? String ?? "none",
            deferralsRemaining: object["deferralsRemaining"] as? Int, message: message,
            updateURL: (object["updateUrl"] as? String).flatMap(URL.init(string:)),
            reasons: (object["reasons"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String },
            source: source, decidedAt: decidedAt, age: max(0, now.timeIntervalSince(decidedAt)), document: document)
    }
}

/// The configuration an MDM pushed to the app (`com.apple.configuration.managed` in `UserDefaults`) and the
/// app's schema: checked with the same validator as `mdmconf validate`, so the app can report precisely what
/// is wrong with what it was given.
public struct ManagedConfiguration: Sendable {
    public var value: PlistValue
    public var schema: ConfigSchema

    public init(value: PlistValue, schema: ConfigSchema) {
        self.value = value
        self.schema = schema
    }

    /// Loads the app's schema (an AppConfig specfile or a ProfileManifest) from its bytes, e.g. a file bundled
    /// with the app; nil with the findings when it is not a usable schema.
    public static func schema(from bytes: [UInt8], name: String) -> (schema: ConfigSchema?, findings: [Diagnostic]) {
        let load = SchemaLoader().load(bytes, path: name)
        return (load.diagnostics.hasErrors ? nil : load.schema, load.diagnostics)
    }

    /// Every finding of `mdmconf validate` about the value (sensitive values redacted).
    public var findings: [Diagnostic] {
        let document = PlistDocument(file: "managed configuration", root: PlistNode(value), shape: nil, diagnostics: [])
        return Validator.validate(document, against: schema)
    }

    /// The check-in's `configError`: nil when the configuration has no errors, else its errors as
    /// `CODE key.path: message` joined by `; ` (at most 4,096 bytes, as the server accepts).
    public var configError: String? {
        let errors = findings.filter { $0.severity == .error }
        guard !errors.isEmpty else { return nil }
        var text = ""
        for (index, error) in errors.enumerated() {
            let item = "\(error.code.code) \(error.keyPath ?? "(root)"): \(error.message)"
            let separator = text.isEmpty ? "" : "; "
            if text.utf8.count + separator.utf8.count + item.utf8.count > 4000 {
                text += "; and \(errors.count - index) more"
                break
            }
            text += separator + item
        }
        return text
    }
}

/// The launch's time limit passed before the server answered.
struct DeadlinePassed: Error {}

enum Deadline {
    /// `body`'s result, or ``DeadlinePassed`` once `deadline` passes. At the deadline the caller resumes at
    /// once and `body` is cancelled without being awaited.
    static func race<T: Sendable>(
        until deadline: ContinuousClock.Instant, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let once = Once<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                once.start(continuation)
                let work = Task {
                    do { once.finish(.success(try await body())) } catch { once.finish(.failure(error)) }
                }
                let timer = Task {
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    if once.finish(.failure(DeadlinePassed())) { work.cancel() }
                }
                once.onFinish { timer.cancel() }
            }
        } onCancel: {
            once.finish(.failure(CancellationError()))
        }
    }

    /// Resumes a continuation exactly once, whoever comes first.
    private final class Once<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<T, any Error>?
        private var pending: Result<T, any Error>?
        private var done = false
        private var cleanup: (@Sendable () -> Void)?

        func start(_ continuation: CheckedContinuation<T, any Error>) {
            lock.lock()
            if let pending {
                lock.unlock()
                continuation.resume(with: pending)
                return
            }
            self.continuation = continuation
            lock.unlock()
        }

        func onFinish(_ action: @escaping @Sendable () -> Void) {
            lock.lock()
            if done {
                lock.unlock()
                action()
                return
            }
            cleanup = action
            lock.unlock()
        }

        /// True when this call resumed the caller.
        @discardableResult
        func finish(_ result: Result<T, any Error>) -> Bool {
            lock.lock()
            guard !done else {
                lock.unlock()
                return false
            }
            done = true
            let continuation = self.continuation
            self.continuation = nil
            if continuation == nil { pending = result }
            let cleanup = self.cleanup
            self.cleanup = nil
            lock.unlock()
            continuation?.resume(with: result)
            cleanup?()
            return true
        }
    }
}
