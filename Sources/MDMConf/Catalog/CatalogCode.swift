import MDMDiagnostics

/// The catalog and server codes (`MC6xxx`, *Serving a catalog*): what makes a catalog folder unusable, and what the
/// server reports about a request it refuses.
public enum CatalogCode {
    /// The catalog path is not a readable folder.
    public static let notACatalog = DiagnosticCode(
        "MC6001", "not-a-catalog", summary: "The catalog path is not a readable folder.")
    /// A file of the catalog cannot be read.
    public static let unreadableFile = DiagnosticCode(
        "MC6002", "unreadable-catalog-file", summary: "A file of the catalog cannot be read.")
    /// An entry of apps/ is not a folder named by a bundle id.
    public static let invalidAppFolder = DiagnosticCode(
        "MC6003", "invalid-app-folder", summary: "An entry of apps/ is not a folder named by a bundle id.")
    /// An app folder has no schema.xml or schema.plist, or has both.
    public static let missingSchema = DiagnosticCode(
        "MC6004", "missing-schema", summary: "An app folder has no schema.xml or schema.plist, or has both.")
    /// The schema in an app folder declares another app's id.
    public static let schemaForAnotherApp = DiagnosticCode(
        "MC6005", "schema-for-another-app", summary: "The schema in an app folder declares another app's id.")
    /// An app folder has no config.plist.
    public static let missingConfig = DiagnosticCode(
        "MC6006", "missing-config", summary: "An app folder has no config.plist.")
    /// A file the catalog does not use (often a misspelt name); it is ignored.
    public static let unexpectedFile = DiagnosticCode(
        "MC6007", "unexpected-catalog-file",
        summary: "A file the catalog does not use (often a misspelt name); it is ignored.")
    /// devices.plist is not a dict of device ids to attribute dicts.
    public static let invalidInventory = DiagnosticCode(
        "MC6008", "invalid-inventory", summary: "devices.plist is not a dict of device ids to attribute dicts.")
    /// tokens.plist is not a dict of SHA-256 hex digests to {scope, device} with known devices.
    public static let invalidTokens = DiagnosticCode(
        "MC6009", "invalid-tokens",
        summary: "tokens.plist is not a dict of SHA-256 hex digests to {scope, device} with known devices.")
    /// mdmconf-server.plist has an unknown key or a value out of range.
    public static let invalidSettings = DiagnosticCode(
        "MC6010", "invalid-settings", summary: "mdmconf-server.plist has an unknown key or a value out of range.")
    /// A configs/ entry is not a .plist file named by a group.
    public static let invalidGroupVariant = DiagnosticCode(
        "MC6011", "invalid-group-variant", summary: "A configs/ entry is not a .plist file named by a group.")
    /// No device in the inventory is in this variant's group.
    public static let unusedGroupVariant = DiagnosticCode(
        "MC6012", "unused-group-variant", summary: "No device in the inventory is in this variant's group.")
    /// The catalog has no apps and no profiles.
    public static let emptyCatalog = DiagnosticCode(
        "MC6013", "empty-catalog", summary: "The catalog has no apps and no profiles.")
    /// An inline profile of /v1/policy/evaluate cannot be loaded (422).
    public static let invalidProfiles = DiagnosticCode(
        "MC6014", "invalid-profiles", summary: "An inline profile of /v1/policy/evaluate cannot be loaded (422).")
    /// A configuration breaks its schema once a device's variables are substituted.
    public static let deviceConfigInvalid = DiagnosticCode(
        "MC6015", "device-config-invalid",
        summary: "A configuration breaks its schema once a device's variables are substituted.")
    /// An app's `ddm.plist` that cannot be used.
    public static let invalidDDMSettings = DiagnosticCode(
        "MC6016", "invalid-ddm-settings",
        summary: "An app's ddm.plist has an unknown key or a value its declaration cannot carry.")
    /// events.plist has an unknown key, an unusable URL, an unknown event type, or a secret written in clear.
    public static let invalidEvents = DiagnosticCode(
        "MC6017", "invalid-events",
        summary:
            "events.plist has an unknown key, an unusable URL, an unknown event type, or a secret written in clear.")

    /// Request errors the server answers with (never part of a catalog load).
    public static let badRequest = DiagnosticCode(
        "MC6101", "bad-request", summary: "A malformed path, query parameter or JSON body (400).")
    /// No bearer token, or one that is not in tokens.plist (401).
    public static let unauthorized = DiagnosticCode(
        "MC6102", "unauthorized", summary: "No bearer token, or one that is not in tokens.plist (401).")
    /// A valid token asking for something outside its scope (403).
    public static let forbidden = DiagnosticCode(
        "MC6103", "forbidden", summary: "A valid token asking for something outside its scope (403).")
    /// An app, device or route the catalog does not have (404).
    public static let notFound = DiagnosticCode(
        "MC6104", "not-found", summary: "An app, device or route the catalog does not have (404).")
    /// A request body over the catalog's maxBodySize (413).
    public static let bodyTooLarge = DiagnosticCode(
        "MC6105", "body-too-large", summary: "A request body over the catalog's maxBodySize (413).")
    /// The Accept header allows neither a plist nor JSON (406).
    public static let notAcceptable = DiagnosticCode(
        "MC6106", "not-acceptable", summary: "The Accept header allows neither a plist nor JSON (406).")
    /// A check-in whose fields break the grammars of *Update policies*, or with unknown keys (422).
    public static let invalidCheckIn = DiagnosticCode(
        "MC6107", "invalid-checkin",
        summary: "A check-in whose fields break the grammars of *Update policies*, or with unknown keys (422).")
    /// The fleet store cannot take writes now; retry after the Retry-After seconds (503).
    public static let storeUnavailable = DiagnosticCode(
        "MC6108", "store-unavailable",
        summary: "The fleet store cannot take writes now; retry after the Retry-After seconds (503).")
    /// The server runs with --store none: no check-ins, no fleet state (404).
    public static let fleetDisabled = DiagnosticCode(
        "MC6109", "fleet-disabled", summary: "The server runs with --store none: no check-ins, no fleet state (404).")

    /// The declarative channel asked for with no https URL to give its assets.
    public static let ddmUnavailable = DiagnosticCode(
        "MC6110", "ddm-unavailable",
        summary: "The declarative channel has no https URL to put in its assets: no TLS and no --public-url (503).")

    /// Every code of this family, each documented in *Diagnostic codes*.

    public static let all: [DiagnosticCode] = [
        notACatalog, unreadableFile, invalidAppFolder, missingSchema, schemaForAnotherApp, missingConfig,
        unexpectedFile, invalidInventory, invalidTokens, invalidSettings, invalidGroupVariant, unusedGroupVariant,
        emptyCatalog, invalidProfiles, deviceConfigInvalid, invalidDDMSettings, invalidEvents, badRequest, unauthorized, forbidden, notFound,
        bodyTooLarge, notAcceptable, invalidCheckIn, storeUnavailable, fleetDisabled, ddmUnavailable,
    ]
}
