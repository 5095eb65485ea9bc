import MDMDiagnostics

/// The device-policy codes (*Device policies*): `MC50xx` profile errors, `MC51xx` query
/// errors, `MC52xx` lints (each with its `L_…` rule).
public enum DevicePolicyCode {
    /// The root is not a dict.
    public static let notAProfile = DiagnosticCode("MC5001", "not-a-profile", summary: "The root is not a dict.")
    /// A key the profile, payload, bookmark or schedule needs is absent.
    public static let missingRequiredKey = DiagnosticCode(
        "MC5002", "missing-required-key", summary: "A key the profile, payload, bookmark or schedule needs is absent.")
    /// An evaluated key has the wrong plist type (no coercion).
    public static let wrongType = DiagnosticCode(
        "MC5003", "wrong-type", summary: "An evaluated key has the wrong plist type (no coercion).")
    /// A value outside its enumeration, a 0/1 integer outside {0, 1}, or an empty identifier or title.
    public static let invalidValue = DiagnosticCode(
        "MC5004", "invalid-value",
        summary: "A value outside its enumeration, a 0/1 integer outside {0, 1}, or an empty identifier or title.")
    /// A bundle id not matching [A-Za-z0-9.-]+.
    public static let invalidBundleID = DiagnosticCode(
        "MC5005", "invalid-bundle-id", summary: "A bundle id not matching [A-Za-z0-9.-]+.")
    /// An SSID of 0 or more than 32 bytes, or malformed hex.
    public static let invalidSSID = DiagnosticCode(
        "MC5006", "invalid-ssid", summary: "An SSID of 0 or more than 32 bytes, or malformed hex.")
    /// A URL pattern breaking the pattern grammar (section 8.1).
    public static let invalidURLPattern = DiagnosticCode(
        "MC5007", "invalid-url-pattern", summary: "A URL pattern breaking the pattern grammar (section 8.1).")
    /// Schedule Days, Start or End malformed, or Start equal to End.
    public static let invalidSchedule = DiagnosticCode(
        "MC5008", "invalid-schedule", summary: "Schedule Days, Start or End malformed, or Start equal to End.")
    /// A schedule TimeZone not in the system tz database.
    public static let unknownTimeZone = DiagnosticCode(
        "MC5009", "unknown-time-zone", summary: "A schedule TimeZone not in the system tz database.")
    /// Two payloads of one profile share a PayloadIdentifier.
    public static let duplicatePayloadIdentifier = DiagnosticCode(
        "MC5010", "duplicate-payload-identifier", summary: "Two payloads of one profile share a PayloadIdentifier.")
    /// --skip-invalid dropped this document.
    public static let profileSkipped = DiagnosticCode(
        "MC5011", "profile-skipped", summary: "--skip-invalid dropped this document.")
    /// A signed (CMS) or encrypted profile.
    public static let unsupportedProfileEncoding = DiagnosticCode(
        "MC5012", "unsupported-profile-encoding", summary: "A signed (CMS) or encrypted profile.")

    /// The app or asam argument is not a bundle id.
    public static let invalidQueryBundleID = DiagnosticCode(
        "MC5101", "invalid-query-bundle-id", summary: "The app or asam argument is not a bundle id.")
    /// The URL argument cannot be parsed (section 8.2).
    public static let invalidQueryURL = DiagnosticCode(
        "MC5102", "invalid-query-url", summary: "The URL argument cannot be parsed (section 8.2).")
    /// The URL argument's scheme is not http or https.
    public static let unsupportedURLScheme = DiagnosticCode(
        "MC5103", "unsupported-url-scheme", summary: "The URL argument's scheme is not http or https.")
    /// The SSID argument is empty, longer than 32 bytes or malformed.
    public static let invalidQuerySSID = DiagnosticCode(
        "MC5104", "invalid-query-ssid", summary: "The SSID argument is empty, longer than 32 bytes or malformed.")
    /// --at is not an RFC 3339 date-time with Z or an offset.
    public static let invalidQueryTime = DiagnosticCode(
        "MC5105", "invalid-query-time", summary: "--at is not an RFC 3339 date-time with Z or an offset.")
    /// The restriction argument is not a restriction key.
    public static let unknownRestrictionKey = DiagnosticCode(
        "MC5106", "unknown-restriction-key", summary: "The restriction argument is not a restriction key.")

    /// Every `MC50xx` and `MC51xx` code.
    public static let errors: [DiagnosticCode] = [
        notAProfile, missingRequiredKey, wrongType, invalidValue, invalidBundleID, invalidSSID, invalidURLPattern,
        invalidSchedule, unknownTimeZone, duplicatePayloadIdentifier, profileSkipped, unsupportedProfileEncoding,
        invalidQueryBundleID, invalidQueryURL, unsupportedURLScheme, invalidQuerySSID, invalidQueryTime,
        unknownRestrictionKey,
    ]
}

/// A device-policy lint (section 13): its code, rule and default severity.
public struct PolicyLint: Sendable, Hashable {
    /// The lint's code, with its rule identifier.
    public let code: DiagnosticCode
    /// How serious it is unless configured otherwise.
    public let severity: Severity

    init(_ number: Int, _ name: String, _ rule: String, _ severity: Severity, _ summary: String) {
        code = DiagnosticCode("MC\(number)", name, rule: rule, summary: summary)
        self.severity = severity
    }

    /// A later document replaced a profile.
    public static let profileReplaced = PolicyLint(
        5201, "profile-replaced", "L_PROFILE_REPLACED", .warning, "A later document replaced a profile.")
    /// A payload type mdmconf does not evaluate.
    public static let unknownPayloadType = PolicyLint(
        5202, "unknown-payload-type", "L_UNKNOWN_PAYLOAD_TYPE", .info, "A payload type mdmconf does not evaluate.")
    /// A key neither evaluated nor in Apple's schema for the type.
    public static let unknownKey = PolicyLint(
        5203, "unknown-key", "L_UNKNOWN_KEY", .info, "A key neither evaluated nor in Apple's schema for the type.")
    /// A deprecated key alias is used.
    public static let deprecatedKey = PolicyLint(
        5204, "deprecated-key", "L_DEPRECATED_KEY", .info, "A deprecated key alias is used.")
    /// An alias and its current key in one payload: the alias is ignored.
    public static let deprecatedAndCurrent = PolicyLint(
        5205, "deprecated-and-current", "L_DEPRECATED_AND_CURRENT", .warning,
        "An alias and its current key in one payload: the alias is ignored.")
    /// A payload or profile without PayloadUUID.
    public static let missingUUID = PolicyLint(
        5206, "missing-payload-uuid", "L_MISSING_UUID", .info, "A payload or profile without PayloadUUID.")
    /// An allow-type list is present but empty: it allows nothing.
    public static let emptyList = PolicyLint(
        5207, "empty-allow-list", "L_EMPTY_LIST", .warning,
        "An allow-type list is present but empty: it allows nothing.")
    /// Bundle ids differing only by case.
    public static let caseVariant = PolicyLint(
        5208, "case-variant", "L_CASE_VARIANT", .info, "Bundle ids differing only by case.")
    /// An app or SSID in an allowlist and a deny list.
    public static let allowDenyOverlap = PolicyLint(
        5209, "allow-deny-overlap", "L_ALLOW_DENY_OVERLAP", .warning, "An app or SSID in an allowlist and a deny list.")
    /// An empty MDMConfSchedule: never active.
    public static let scheduleNever = PolicyLint(
        5210, "schedule-never-active", "L_SCHEDULE_NEVER", .warning, "An empty MDMConfSchedule: never active.")
    /// App Lock payloads name different apps.
    public static let kioskConflict = PolicyLint(
        5211, "kiosk-conflict", "L_KIOSK_CONFLICT", .error, "App Lock payloads name different apps.")
    /// More than one App Lock payload.
    public static let multipleAppLock = PolicyLint(
        5212, "multiple-app-lock", "L_MULTIPLE_APP_LOCK", .warning, "More than one App Lock payload.")
    /// A kiosk feature both forced and user-toggleable.
    public static let kioskOptionOverlap = PolicyLint(
        5213, "kiosk-option-overlap", "L_KIOSK_OPTION_OVERLAP", .warning,
        "A kiosk feature both forced and user-toggleable.")
    /// DisableTouch with VoiceOver, Zoom or AssistiveTouch forced or toggleable.
    public static let kioskTouchConflict = PolicyLint(
        5214, "kiosk-touch-conflict", "L_KIOSK_TOUCH_CONFLICT", .warning,
        "DisableTouch with VoiceOver, Zoom or AssistiveTouch forced or toggleable.")
    /// The app rules deny the App Lock app.
    public static let kioskAppBlocked = PolicyLint(
        5215, "kiosk-app-blocked", "L_KIOSK_APP_BLOCKED", .error, "The app rules deny the App Lock app.")
    /// A BuiltIn key in a Plugin filter or the reverse.
    public static let keyIgnoredForFilterType = PolicyLint(
        5216, "key-ignored-for-filter-type", "L_KEY_IGNORED_FOR_FILTERTYPE", .warning,
        "A BuiltIn key in a Plugin filter or the reverse.")
    /// PermittedURLs without AutoFilterEnabled = true.
    public static let permittedWithoutAutoFilter = PolicyLint(
        5217, "permitted-without-auto-filter", "L_PERMITTED_WITHOUT_AUTOFILTER", .warning,
        "PermittedURLs without AutoFilterEnabled = true.")
    /// A deny pattern names a scheme: the other scheme stays open.
    public static let schemeSpecificDeny = PolicyLint(
        5218, "scheme-specific-deny", "L_SCHEME_SPECIFIC_DENY", .warning,
        "A deny pattern names a scheme: the other scheme stays open.")
    /// A * deny pattern while bookmarks or PermittedURLs exist (deny always wins).
    public static let denyAllNoExceptions = PolicyLint(
        5219, "deny-all-no-exceptions", "L_DENY_ALL_NO_EXCEPTIONS", .warning,
        "A * deny pattern while bookmarks or PermittedURLs exist (deny always wins).")
    /// A domain pattern starting www. does not cover the apex.
    public static let wwwOnlyPattern = PolicyLint(
        5220, "www-only-pattern", "L_WWW_ONLY_PATTERN", .info, "A domain pattern starting www. does not cover the apex."
    )
    /// A pattern path not ending in / is a string prefix.
    public static let pathPrefix = PolicyLint(
        5221, "path-prefix", "L_PATH_PREFIX", .info, "A pattern path not ending in / is a string prefix.")
    /// A URL pattern form Apple does not document.
    public static let appleDivergence = PolicyLint(
        5222, "apple-divergence", "L_APPLE_DIVERGENCE", .info, "A URL pattern form Apple does not document.")
    /// A text SSID with leading or trailing white space.
    public static let ssidWhitespace = PolicyLint(
        5223, "ssid-whitespace", "L_SSID_WHITESPACE", .warning, "A text SSID with leading or trailing white space.")
    /// A text SSID containing a literal *.
    public static let ssidWildcardLiteral = PolicyLint(
        5224, "ssid-wildcard-literal", "L_SSID_WILDCARD_LITERAL", .warning, "A text SSID containing a literal *.")
    /// A text SSID not in Unicode NFC.
    public static let ssidNotNFC = PolicyLint(
        5225, "ssid-not-nfc", "L_SSID_NOT_NFC", .info, "A text SSID not in Unicode NFC.")
    /// A profile network is denied.
    public static let wifiConfiguredButDenied = PolicyLint(
        5226, "wifi-configured-but-denied", "L_WIFI_CONFIGURED_BUT_DENIED", .error, "A profile network is denied.")
    /// A Wi-Fi payload without SSID_STR.
    public static let passpointNotEvaluated = PolicyLint(
        5227, "passpoint-not-evaluated", "L_PASSPOINT_NOT_EVALUATED", .info, "A Wi-Fi payload without SSID_STR.")
    /// Wi-Fi forced to allowed networks, but no payload configures one.
    public static let wifiNoAllowedNetworks = PolicyLint(
        5228, "wifi-no-allowed-networks", "L_WIFI_NO_ALLOWED_NETWORKS", .error,
        "Wi-Fi forced to allowed networks, but no payload configures one.")
    /// One SSID in several Wi-Fi payloads with different settings.
    public static let wifiDuplicateSSID = PolicyLint(
        5229, "wifi-duplicate-ssid", "L_WIFI_DUPLICATE_SSID", .warning,
        "One SSID in several Wi-Fi payloads with different settings.")
    /// More than one AlwaysOn VPN payload.
    public static let multipleAlwaysOn = PolicyLint(
        5230, "multiple-always-on", "L_MULTIPLE_ALWAYS_ON", .warning, "More than one AlwaysOn VPN payload.")
    /// RemovalDate or DurationUntilRemoval is not evaluated.
    public static let removalNotEvaluated = PolicyLint(
        5231, "removal-not-evaluated", "L_REMOVAL_NOT_EVALUATED", .info,
        "RemovalDate or DurationUntilRemoval is not evaluated.")

    /// Every lint, in code order.
    public static let all: [PolicyLint] = [
        profileReplaced, unknownPayloadType, unknownKey, deprecatedKey, deprecatedAndCurrent, missingUUID, emptyList,
        caseVariant, allowDenyOverlap, scheduleNever, kioskConflict, multipleAppLock, kioskOptionOverlap,
        kioskTouchConflict, kioskAppBlocked, keyIgnoredForFilterType, permittedWithoutAutoFilter, schemeSpecificDeny,
        denyAllNoExceptions, wwwOnlyPattern, pathPrefix, appleDivergence, ssidWhitespace, ssidWildcardLiteral,
        ssidNotNFC, wifiConfiguredButDenied, passpointNotEvaluated, wifiNoAllowedNetworks, wifiDuplicateSSID,
        multipleAlwaysOn, removalNotEvaluated,
    ]
}
