import MDMDiagnostics

/// The update-policy codes, `MC4xxx` (*Update policies*). The reason string of each is its name with
/// `_` for `-` (`invalid_datetime`).
public enum UpdatePolicyCode {
    /// Neither a plist nor JSON, a JSON syntax error, or a duplicate JSON key.
    public static let malformedDocument = DiagnosticCode(
        "MC4001", "malformed-document",
        summary: "Neither a plist nor JSON, a JSON syntax error, or a duplicate JSON key.")
    /// A value of the wrong type.
    public static let invalidType = DiagnosticCode("MC4002", "invalid-type", summary: "A value of the wrong type.")
    /// A required key is absent.
    public static let missingKey = DiagnosticCode("MC4003", "missing-key", summary: "A required key is absent.")
    /// A key the update-policy format does not define (x- keys are ignored).
    public static let unknownKey = DiagnosticCode(
        "MC4004", "unknown-key", summary: "A key the update-policy format does not define (x- keys are ignored).")
    /// schemaVersion is not 1.
    public static let unsupportedSchemaVersion = DiagnosticCode(
        "MC4005", "unsupported-schema-version", summary: "schemaVersion is not 1.")
    /// A malformed policy id.
    public static let invalidID = DiagnosticCode("MC4006", "invalid-id", summary: "A malformed policy id.")
    /// Two policies have the same id.
    public static let duplicateID = DiagnosticCode("MC4007", "duplicate-id", summary: "Two policies have the same id.")
    /// An empty app or a partial glob.
    public static let invalidApp = DiagnosticCode("MC4008", "invalid-app", summary: "An empty app or a partial glob.")
    /// A catalog policy file names another app.
    public static let appMismatch = DiagnosticCode(
        "MC4009", "app-mismatch", summary: "A catalog policy file names another app.")
    /// A policy without minVersion, minBuild, blockedVersions or a recommendation.
    public static let noRequirement = DiagnosticCode(
        "MC4010", "no-requirement",
        summary: "A policy without minVersion, minBuild, blockedVersions or a recommendation.")
    /// Not an app version (3.1).
    public static let invalidVersion = DiagnosticCode("MC4011", "invalid-version", summary: "Not an app version (3.1).")
    /// Not a build number (3.2).
    public static let invalidBuild = DiagnosticCode("MC4012", "invalid-build", summary: "Not a build number (3.2).")
    /// Not an OS version (3.3).
    public static let invalidOSVersion = DiagnosticCode(
        "MC4013", "invalid-os-version", summary: "Not an OS version (3.3).")
    /// Not a version range (3.4).
    public static let invalidRange = DiagnosticCode("MC4014", "invalid-range", summary: "Not a version range (3.4).")
    /// Not a date-time (3.5).
    public static let invalidDateTime = DiagnosticCode("MC4015", "invalid-datetime", summary: "Not a date-time (3.5).")
    /// Not an IANA time zone.
    public static let invalidTimeZone = DiagnosticCode("MC4016", "invalid-time-zone", summary: "Not an IANA time zone.")
    /// Not a duration (3.6).
    public static let invalidDuration = DiagnosticCode("MC4017", "invalid-duration", summary: "Not a duration (3.6).")
    /// imminentWindow is longer than approachingWindow.
    public static let invalidWindows = DiagnosticCode(
        "MC4018", "invalid-windows", summary: "imminentWindow is longer than approachingWindow.")
    /// A rollout percent outside 0–100, with more than 2 decimals, or not a number.
    public static let invalidPercent = DiagnosticCode(
        "MC4019", "invalid-percent",
        summary: "A rollout percent outside 0–100, with more than 2 decimals, or not a number.")
    /// Not a locale tag (3.7).
    public static let invalidLocale = DiagnosticCode("MC4020", "invalid-locale", summary: "Not a locale tag (3.7).")
    /// Two message locales are equal under case-insensitive comparison.
    public static let duplicateLocale = DiagnosticCode(
        "MC4021", "duplicate-locale", summary: "Two message locales are equal under case-insensitive comparison.")
    /// A URL without a scheme.
    public static let invalidURL = DiagnosticCode("MC4022", "invalid-url", summary: "A URL without a scheme.")
    /// Another bad value.
    public static let invalidValue = DiagnosticCode("MC4023", "invalid-value", summary: "Another bad value.")
    /// An empty platforms, channels, deviceModels or blockedVersions.
    public static let emptyList = DiagnosticCode(
        "MC4024", "empty-list", summary: "An empty platforms, channels, deviceModels or blockedVersions.")
    /// recommendedVersion (or build) is below minVersion (or build).
    public static let recommendedBelowMinimum = DiagnosticCode(
        "MC4101", "recommended-below-minimum", summary: "recommendedVersion (or build) is below minVersion (or build).")
    /// latestVersion is below minVersion or recommendedVersion.
    public static let latestBelowRequirement = DiagnosticCode(
        "MC4102", "latest-below-requirement", summary: "latestVersion is below minVersion or recommendedVersion.")
    /// A key that has no effect here.
    public static let ineffectiveKey = DiagnosticCode(
        "MC4103", "ineffective-key", summary: "A key that has no effect here.")
    /// A hard requirement that yields no targetVersion.
    public static let noTarget = DiagnosticCode(
        "MC4104", "no-target", summary: "A hard requirement that yields no targetVersion.")
    /// Localized texts without a default locale that matches a key.
    public static let noDefaultLocale = DiagnosticCode(
        "MC4105", "no-default-locale", summary: "Localized texts without a default locale that matches a key.")
    /// A floating date-time with no policy or default timeZone.
    public static let floatingWithoutZone = DiagnosticCode(
        "MC4106", "floating-without-zone", summary: "A floating date-time with no policy or default timeZone.")

    /// Every code of this family, each documented in *Diagnostic codes*.

    public static let all: [DiagnosticCode] = [
        malformedDocument, invalidType, missingKey, unknownKey, unsupportedSchemaVersion, invalidID, duplicateID,
        invalidApp, appMismatch, noRequirement, invalidVersion, invalidBuild, invalidOSVersion, invalidRange,
        invalidDateTime, invalidTimeZone, invalidDuration, invalidWindows, invalidPercent, invalidLocale,
        duplicateLocale,
        invalidURL, invalidValue, emptyList, recommendedBelowMinimum, latestBelowRequirement, ineffectiveKey, noTarget,
        noDefaultLocale, floatingWithoutZone,
    ]

    /// The reason string of a code (`MC4015` → `invalid_datetime`).
    public static func reason(_ code: DiagnosticCode) -> String {
        String(code.name.map { $0 == "-" ? "_" : $0 })
    }
}
