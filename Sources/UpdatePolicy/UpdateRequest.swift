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
        didSet { deviceModelKey = (deviceModel ?? "").asciiLowercasedUTF8 }
    }
    /// The device id, which places the device in rollouts.
    public var deviceID: String? {
        didSet { rolloutID = Rollout.normalizedBytes(deviceID ?? "") }
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

    /// One empty slot per field, appended one by one: `Array(repeating:count:)` allocates through a standard-library
    /// call that is not specialized and looks the storage's type up at run time, and a copy of a prepared array
    /// copies its elements through their type's value witnesses (about 800 instructions more than appending).
    static var emptySlots: [String?] {
        var slots: [String?] = []
        slots.reserveCapacity(fields.count)
        for _ in fields.indices { slots.append(nil) }
        return slots
    }

    /// The slot of a request field in `fields`' order; nil for a field a request does not have.
    static func slot(of field: String) -> Int? { fields.firstIndex(of: field) }

    /// The slot of `deferralsUsed`, the one field given as an integer.
    static let deferralsSlot = 11

    /// A member's value as JSON typed it.
    enum MemberValue {
        case string(String)
        case integer(Int64)
        /// `null`: the member is absent.
        case absent
        /// A boolean, a real, an array or an object.
        case other
    }

    /// Puts a member's value into its slot: text for every field but `deferralsUsed`, an integer for that one; a
    /// value of another type is the field's reason.
    static func take(_ value: MemberValue, slot: Int, into slots: inout [String?], typeErrors: inout [String]) {
        switch value {
        case .absent: break
        case .string(let text) where slot != deferralsSlot: slots[slot] = text
        case .integer(let number) where slot == deferralsSlot: slots[slot] = number < 0 ? "-" : String(number)
        default: typeErrors.append(reason(slot: slot))
        }
    }

    /// The reason code of a field whose value is wrong (`invalid_os_version`, `invalid_deferrals`).
    static func reason(slot: Int) -> String {
        slot == deferralsSlot ? "invalid_deferrals" : "invalid_" + snake(fields[slot])
    }

    /// Validates every field; either the request, or one reason code per malformed field (`invalid_version`, …),
    /// plus `unknown_field` for fields not in the request (except `x-` ones).
    public static func parse(_ values: [String: String]) -> Result<UpdateRequest, RequestErrors> {
        var slots = emptySlots
        var unknown = 0
        for (key, value) in values {
            if let slot = slot(of: key) {
                slots[slot] = value
            } else if !key.hasPrefix("x-") {
                unknown += 1
            }
        }
        return parse(slots: slots, unknownFields: unknown)
    }

    /// `parse(_:)` over the fields' texts in `fields`' order (nil: not given), after `unknownFields` fields that a
    /// request does not have.
    static func parse(slots: [String?], unknownFields: Int) -> Result<UpdateRequest, RequestErrors> {
        var errors = [String](repeating: "unknown_field", count: unknownFields)
        func reason(_ slot: Int) -> String { Self.reason(slot: slot) }
        func text(_ slot: Int) -> String? {
            guard let given = slots[slot] else { return nil }
            // Most texts have nothing to trim: returned as they are, without a substring.
            return given.trimmedOfASCIIWhitespace
        }
        let app = text(0).flatMap { $0.isEmpty ? nil : $0 }
        if app == nil { errors.append(reason(0)) }
        let version = text(1).flatMap(AppVersion.init)
        if version == nil { errors.append(reason(1)) }
        let platform = text(3).flatMap(token)
        if platform == nil { errors.append(reason(3)) }
        func optional<T>(_ slot: Int, _ parse: (String) -> T?) -> T? {
            guard let value = text(slot) else { return nil }
            guard let parsed = parse(value) else {
                errors.append(reason(slot))
                return nil
            }
            return parsed
        }
        let build = optional(2, BuildNumber.init)
        let osVersion = optional(4, OSVersion.init)
        let deviceModel = optional(5) { $0.isEmpty ? nil : $0 }
        let channel = optional(7, token)
        let locale = optional(8, LocaleTag.init)
        let timeZone = optional(9, ZoneInfo.init(named:))
        let now = optional(10, absoluteInstant)
        let enrolledAt = optional(12, absoluteInstant)
        let deferrals = optional(deferralsSlot) { text -> Int64? in
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
        if let id = text(6), !id.isEmpty { request.deviceID = id }
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
        var slots = emptySlots
        var unknown = 0
        var typeErrors: [String] = []
        // A dictionary's keys are unique (the readers keep one of each), as the dictionary form's are.
        for entry in dict.entries {
            guard let slot = slot(of: entry.key) else {
                // Whatever its value, a field a request does not have is that reason.
                if !entry.key.hasPrefix("x-") { unknown += 1 }
                continue
            }
            let value: MemberValue =
                switch entry.value.value {
                case .string(let text): .string(text)
                case .integer(let number): .integer(number)
                default: .other
                }
            take(value, slot: slot, into: &slots, typeErrors: &typeErrors)
        }
        switch parse(slots: slots, unknownFields: unknown) {
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
