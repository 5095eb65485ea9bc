import ConfigSchema
import Foundation
import MDMDiagnostics
import PropertyList
import UpdatePolicy

/// JSON through the project's own reader and writer (no `Any` trees): `null` members read as absent.
enum JSON {
    static func read(_ bytes: [UInt8]) -> PlistValue? {
        let document = JSONPlistReader(nullMembersAreAbsent: true).read(bytes, file: "answer")
        return document.hasErrors ? nil : document.root?.value
    }

    static func text(_ value: PlistValue) -> String { PlistWriter.json(value, pretty: false) }
}

extension PlistValue {
    var dictionary: PlistDictionary? {
        if case .dictionary(let dict) = self { return dict }
        return nil
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var integer: Int64? {
        if case .integer(let number) = self { return number }
        return nil
    }

    var real: Double? {
        switch self {
        case .real(let number): number
        case .integer(let number): Double(number)
        default: nil
        }
    }
}

extension UpdateAdvice {
    /// The advice in a decision document (*Update policies*); nil when it is not one, or its decision is
    /// `error` (which a check-in never answers with 200).
    init?(document value: PlistValue, source: Source, now: Date) {
        guard let object = value.dictionary, let decisionText = object["decision"]?.value.string,
            let decision = UpdateDecision(rawValue: decisionText)
        else { return nil }
        func text(_ key: String) -> String? { object[key]?.value.string }
        func date(_ key: String) -> Date? {
            text(key).flatMap { PlistDate(iso8601: $0) }.map { Date(timeIntervalSince1970: $0.secondsSince1970) }
        }
        let decidedAt = date("evaluatedAt") ?? now
        var message: Message?
        if let fields = object["message"]?.value.dictionary {
            message = Message(
                locale: fields["locale"]?.value.string ?? "", title: fields["title"]?.value.string,
                body: fields["body"]?.value.string)
        }
        var reasons: [String] = []
        if case .array(let items)? = object["reasons"]?.value {
            reasons = items.compactMap { $0.value.dictionary?["code"]?.value.string }
        }
        self.init(
            decision: decision, policy: text("policy"), targetVersion: text("targetVersion"),
            deadline: date("deadline"),
            urgency: text("urgency") ?? "none",
            deferralsRemaining: object["deferralsRemaining"]?.value.integer.map(Int.init),
            message: message, updateURL: text("updateUrl").flatMap(URL.init(string:)), reasons: reasons,
            source: source, decidedAt: decidedAt, age: max(0, now.timeIntervalSince(decidedAt)),
            document: JSON.text(value))
    }

    /// The advice in a decision document's JSON text.
    init?(document: String, source: Source, now: Date) {
        guard let value = JSON.read(Array(document.utf8)) else { return nil }
        self.init(document: value, source: source, now: now)
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
