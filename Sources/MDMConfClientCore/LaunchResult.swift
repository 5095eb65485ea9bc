import Foundation
import PropertyList

/// What one ``MDMConfClient/launch(version:build:platform:osVersion:deviceModel:locale:timeZone:channel:deferralsUsed:managedConfiguration:)``
/// found: the configuration to run with, the update decision to obey, and what went wrong on the way.
public struct LaunchResult: Sendable {
    /// The configuration to run with; nil when there is none (the catalog serves none for the app, or nothing
    /// was ever fetched and the server cannot be reached, or the server refused the token).
    public var configuration: Configuration?
    /// The update decision; nil when there is none (the catalog has no rule for the app, or none is known).
    public var update: UpdateAdvice?
    /// Why the answer is not straight from the server, if it is not.
    public var problem: LaunchProblem?
    /// The catalog generation the server answered from (nil offline).
    public var catalogGeneration: Int?
    /// What the app sent as `configError` (the managed configuration's findings), if anything.
    public var configError: String?
    /// Why the cache could not be written (the launch's answer stands; the next launch may not have it offline).
    public var cacheError: String?

    /// Whether the app may go on to its main screen: false when an update is required, the OS is too old, or the
    /// server refused the token. A recommended update still continues (after the nag).
    public var mayContinue: Bool {
        if case .refused = problem { return false }
        switch update?.decision {
        case .required?, .unsupported?: return false
        default: return true
        }
    }
}

/// Where a value came from.
public enum Source: String, Sendable, Equatable {
    /// Fetched in this launch.
    case network
    /// Kept from an earlier launch: the server confirmed it is current (`current` or 304), or could not be
    /// asked (see ``LaunchResult/problem``).
    case cache
}

/// The app's managed configuration as the server serves it to this device.
public struct Configuration: Sendable {
    /// The root dictionary.
    public var value: PlistValue
    /// The strong ETag of the served bytes.
    public var etag: String
    public var source: Source
    /// Whether the server said in this launch that this is the current configuration.
    public var isCurrent: Bool
    /// When it was fetched from the server.
    public var fetchedAt: Date
    /// Seconds since it was fetched, as of the launch.
    public var age: Double

    /// The value at a key path such as `Sync.Interval` or `Servers[0].URL`; nil when absent.
    public subscript(path: String) -> PlistValue? { value.lookup(path) }

    /// The configuration decoded into `type`: the struct `mdmconf schema codegen --swift` writes from the app's
    /// schema, or any `Decodable` of the same shape. Dates decode from ISO 8601, data from base64. A value that breaks
    /// the type throws a `DecodingError` whose context names the key path.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: Data(PlistWriter.json(value, pretty: false).utf8))
    }

    public func string(_ path: String) -> String? {
        if case .string(let text)? = self[path] { return text }
        return nil
    }

    public func integer(_ path: String) -> Int64? {
        if case .integer(let number)? = self[path] { return number }
        return nil
    }

    /// A `<real>`, or an `<integer>` as a double.
    public func double(_ path: String) -> Double? {
        switch self[path] {
        case .real(let number)?: number
        case .integer(let number)?: Double(number)
        default: nil
        }
    }

    public func bool(_ path: String) -> Bool? {
        if case .boolean(let flag)? = self[path] { return flag }
        return nil
    }

    public func date(_ path: String) -> Date? {
        guard case .date(let date)? = self[path] else { return nil }
        return Date(timeIntervalSince1970: date.secondsSince1970)
    }

    public func data(_ path: String) -> [UInt8]? {
        if case .data(let bytes)? = self[path] { return bytes }
        return nil
    }

    public func array(_ path: String) -> [PlistValue]? {
        if case .array(let items)? = self[path] { return items.map(\.value) }
        return nil
    }

    /// A string as a URL (nil when absent, not a string, or not a URL).
    public func url(_ path: String) -> URL? { string(path).flatMap(URL.init(string:)) }
}

/// `ok`, `recommended`, `required` or `unsupported`, as *Update policies* decides.
public enum UpdateDecision: String, Sendable, Equatable, CaseIterable {
    case ok, recommended, required, unsupported
}

/// The update decision for this launch, with what the app shows.
public struct UpdateAdvice: Sendable, Equatable {
    public var decision: UpdateDecision
    /// The policy that decided (nil for `ok` without rules).
    public var policy: String?
    public var targetVersion: String?
    /// When a recommended update becomes required.
    public var deadline: Date?
    /// `none`, `low`, `initial`, `approaching`, `imminent` or `critical`.
    public var urgency: String
    public var deferralsRemaining: Int?
    /// The message in the locale the server chose for the device.
    public var message: Message?
    /// Where to update (App Store, MDM self-service, …).
    public var updateURL: URL?
    /// The reason codes, in the server's order (`below_min_version`, `deadline_passed`, …).
    public var reasons: [String]
    public var source: Source
    /// When the server decided.
    public var decidedAt: Date
    /// Seconds since the server decided, as of the launch.
    public var age: Double
    /// The decision document exactly as the server sent it (*Update policies*).
    public var document: String

    public struct Message: Sendable, Equatable {
        public var locale: String
        public var title: String?
        public var body: String?
    }
}

/// Why a launch's answer is not (all) fresh from the server.
public enum LaunchProblem: Sendable, Equatable, CustomStringConvertible {
    /// The server refused the token (401 or 403). Show it: the app is not allowed to run as this device.
    case refused(status: Int, message: String)
    /// The server refused the check-in itself (a 4xx other than 401/403: unknown device, a bad version).
    case rejected(status: Int, message: String)
    /// No answer in time, no network, or the connection failed; the cache was used.
    case unreachable(String)
    /// The server answered with an error status (5xx) or an answer that does not parse; the cache was used.
    case badAnswer(String)

    public var description: String {
        switch self {
        case .refused(let status, let message): "the server refused the token (\(status)): \(message)"
        case .rejected(let status, let message): "the server refused the check-in (\(status)): \(message)"
        case .unreachable(let reason): "the server could not be reached: \(reason)"
        case .badAnswer(let reason): "the server's answer could not be used: \(reason)"
        }
    }

    /// A short stable name: `refused`, `rejected`, `unreachable`, `bad_answer`.
    public var kind: String {
        switch self {
        case .refused: "refused"
        case .rejected: "rejected"
        case .unreachable: "unreachable"
        case .badAnswer: "bad_answer"
        }
    }
}

extension PlistValue {
    /// The value at a dotted key path with `[n]` indexes (`a.b[2].c`); nil when any step is missing.
    func lookup(_ path: String) -> PlistValue? {
        var current = self
        var rest = Substring(path)
        while !rest.isEmpty {
            if rest.first == "[" {
                guard let close = rest.firstIndex(of: "]"),
                    let index = Int(rest[rest.index(after: rest.startIndex)..<close]),
                    case .array(let items) = current, items.indices.contains(index)
                else { return nil }
                current = items[index].value
                rest = rest[rest.index(after: close)...]
            } else {
                if rest.first == "." { rest = rest.dropFirst() }
                let end = rest.firstIndex { $0 == "." || $0 == "[" } ?? rest.endIndex
                guard case .dictionary(let dict) = current, let node = dict[String(rest[..<end])] else { return nil }
                current = node.value
                rest = rest[end...]
            }
        }
        return current
    }
}
