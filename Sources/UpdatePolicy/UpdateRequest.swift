import CivilTime
import MDMDiagnostics
import PropertyList

/// The facts of one installed app (*Update policies*), validated.
public struct UpdateRequest: Sendable {
    /// The app's bundle id.
    public var app: String
    /// The installed version.
    public var version: AppVersion
    /// The installed build, when reported.
    public var build: BuildNumber?
    /// The platform, lower-case (`ios`, `macos`, `android`…).
    public var platform: String
    /// The OS version, when reported.
    public var osVersion: OSVersion?
    /// The device model (`iPhone15,2`), when reported.
    public var deviceModel: String? {
        didSet { deviceModelKey = Array((deviceModel ?? "").asciiLowercased().utf8) }
    }
    /// The device id, which places the device in rollouts.
    public var deviceID: String? {
        didSet { rolloutID = Array(Rollout.normalize(deviceID ?? "").utf8) }
    }
    /// `deviceModel` lowercased, and `deviceID` as rollout buckets use it (empty without one), both as UTF-8:
    /// computed once per request.
    private(set) var deviceModelKey: [UInt8] = []
    private(set) var rolloutID: [UInt8] = []
    /// The release channel the app is on.
    public var channel = "stable"
    /// The device's locale, for the message.
    public var locale: LocaleTag?
    /// The device's time zone, for deadlines written in local time.
    public var timeZone: ZoneInfo?
    /// The time to decide at (tests and what-ifs); nil: now.
    public var now: Instant?
    /// How many times the user has put the update off.
    public var deferralsUsed: Int64 = 0
    /// When the device was enrolled, for a new device's grace period.
    public var enrolledAt: Instant?

    /// A request with the three fields every request has.
    public init(app: String, version: AppVersion, platform: String) {
        self.app = app
        self.version = version
        self.platform = platform
    }

    /// The fields of a request as text (from flags, query parameters or JSON strings), and `deferralsUsed`.
    public static let fields = [
        "app", "version", "build", "platform", "osVersion", "deviceModel", "deviceId", "channel", "locale", "timeZone",
        "now",
        "deferralsUsed", "enrolledAt",
    ]

    private static let knownFields = Set(fields)

    /// Validates every field; either the request, or one reason code per malformed field (`invalid_version`, …),
    /// plus `unknown_field` for fields not in the request (except `x-` ones).
    public static func parse(_ values: [String: String]) -> Result<UpdateRequest, RequestErrors> {
        parse(keys: values.keys) { values[$0] }
    }

    /// `parse(_:)` over any store of fields: `keys` are every field given, `value` looks one up.
    static func parse(keys: some Sequence<String>, value: (String) -> String?) -> Result<UpdateRequest, RequestErrors> {
        var errors: [String] = []
        func reason(_ field: String) -> String {
            field == "deferralsUsed" ? "invalid_deferrals" : "invalid_" + snake(field)
        }
        for key in keys where !knownFields.contains(key) && !key.hasPrefix("x-") {
            errors.append("unknown_field")
        }
        func text(_ field: String) -> String? {
            guard let given = value(field) else { return nil }
            let trimmed = given.trimmingASCIIWhitespace()
            return trimmed.utf8.count == given.utf8.count ? given : String(trimmed)
        }
        let app = text("app").flatMap { $0.isEmpty ? nil : $0 }
        if app == nil { errors.append(reason("app")) }
        let version = text("version").flatMap(AppVersion.init)
        if version == nil { errors.append(reason("version")) }
        let platform = text("platform").flatMap(token)
        if platform == nil { errors.append(reason("platform")) }
        func optional<T>(_ field: String, _ parse: (String) -> T?) -> T? {
            guard let value = text(field) else { return nil }
            guard let parsed = parse(value) else {
                errors.append(reason(field))
                return nil
            }
            return parsed
        }
        let build = optional("build", BuildNumber.init)
        let osVersion = optional("osVersion", OSVersion.init)
        let deviceModel = optional("deviceModel") { $0.isEmpty ? nil : $0 }
        let channel = optional("channel", token)
        let locale = optional("locale", LocaleTag.init)
        let timeZone = optional("timeZone", ZoneInfo.init(named:))
        let now = optional("now", absoluteInstant)
        let enrolledAt = optional("enrolledAt", absoluteInstant)
        let deferrals = optional("deferralsUsed") { text -> Int64? in
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int64(text)
        }
        guard errors.isEmpty, let app, let version, let platform else {
            return .failure(RequestErrors(reasons: errors))
        }
        var request = UpdateRequest(app: app, version: version, platform: platform)
        request.build = build
        request.osVersion = osVersion
        request.deviceModel = deviceModel
        if let id = text("deviceId"), !id.isEmpty { request.deviceID = id }
        if let channel { request.channel = channel }
        request.locale = locale
        request.timeZone = timeZone
        request.now = now
        request.deferralsUsed = deferrals ?? 0
        request.enrolledAt = enrolledAt
        return .success(request)
    }

    /// A request from a JSON object (or plist dict): every field a string except `deferralsUsed`, an integer;
    /// `null` is absent; a wrong type is that field's reason.
    public static func parse(_ node: PlistNode?) -> Result<UpdateRequest, RequestErrors> {
        guard case .dictionary(let dict)? = node?.value else {
            return .failure(RequestErrors(reasons: ["malformed_request"]))
        }
        // The members as text, in a list: a request has a dozen at most, and a linear search beats hashing.
        var values: [(key: String, value: String)] = []
        values.reserveCapacity(dict.entries.count)
        var typeErrors: [String] = []
        for entry in dict.entries {
            switch entry.value.value {
            case .string(let text) where entry.key != "deferralsUsed": values.append((entry.key, text))
            case .integer(let number) where entry.key == "deferralsUsed":
                values.append((entry.key, number < 0 ? "-" : String(number)))
            default:
                if knownFields.contains(entry.key) {
                    typeErrors.append(
                        entry.key == "deferralsUsed" ? "invalid_deferrals" : "invalid_" + snake(entry.key))
                } else {
                    values.append((entry.key, ""))
                }
            }
        }
        // A dictionary's keys are unique (the readers keep one of each), as the dictionary form's are.
        switch parse(keys: values.lazy.map(\.key), value: { field in values.first { $0.key == field }?.value }) {
        case .success(let request) where typeErrors.isEmpty: return .success(request)
        case .success: return .failure(RequestErrors(reasons: typeErrors))
        case .failure(let errors): return .failure(RequestErrors(reasons: errors.reasons + typeErrors))
        }
    }

    static func snake(_ field: String) -> String {
        field.reduce(into: "") { out, character in
            if character.isUppercase { out += "_" + character.lowercased() } else { out.append(character) }
        }
    }

    static func token(_ text: String) -> String? {
        let lowered = text.asciiLowercased()
        guard !lowered.isEmpty,
            lowered.utf8.allSatisfy({
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D
            })
        else { return nil }
        return lowered
    }

    static func absoluteInstant(_ text: String) -> Instant? {
        guard let value = PolicyDateTime(text), case .absolute(let instant) = value.kind else { return nil }
        return instant
    }
}

/// Why a request cannot be evaluated: one reason code per malformed field.
public struct RequestErrors: Error, Sendable, Equatable {
    /// One reason code per malformed field (`invalid_version`…).
    public var reasons: [String]

    /// Errors with these reasons.
    public init(reasons: [String]) { self.reasons = reasons }
}
