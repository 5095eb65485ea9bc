import MDMDiagnostics

/// The catalog codes (`MC60xx`, *Serving a catalog*): what makes a catalog folder unusable. The server's codes for
/// requests it refuses (`MC61xx`) are its own.
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

    /// Every code of this family, each documented in *Diagnostic codes*.

    public static let all: [DiagnosticCode] = [
        notACatalog, unreadableFile, invalidAppFolder, missingSchema, schemaForAnotherApp, missingConfig,
        unexpectedFile, invalidInventory, invalidTokens, invalidSettings, invalidGroupVariant, unusedGroupVariant,
        emptyCatalog, invalidProfiles, deviceConfigInvalid, invalidDDMSettings, invalidEvents,
    ]
}
