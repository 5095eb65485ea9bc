import MDMDiagnostics

/// The codes of the errors the server answers a request with (`MC61xx`): never part of a catalog load, each
/// documented in *Diagnostic codes* with the catalog's `MC60xx`.
public enum RequestCode {
    /// A malformed path, query parameter or JSON body (400).
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
    /// A check-in whose fields break the update policies' grammars, or with unknown keys (422).
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

    /// Every code of this family.
    public static let all: [DiagnosticCode] = [
        badRequest, unauthorized, forbidden, notFound, bodyTooLarge, notAcceptable, invalidCheckIn, storeUnavailable,
        fleetDisabled, ddmUnavailable,
    ]
}
