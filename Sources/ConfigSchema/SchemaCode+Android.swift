import MDMDiagnostics

/// Codes of Android managed configurations: validation (`MC206x`) and the lint of `app_restrictions.xml`
/// (`MC303x`–`MC305x`). Never renumber one.
extension SchemaCode {
    // MARK: Validation of an Android configuration

    /// A `hidden` restriction given a value other than the one the app fixes.
    public static let hiddenValueChanged = DiagnosticCode(
        "MC2061", "hidden-value-changed",
        summary: "A hidden restriction holds a value other than the default the app fixes for it.")
    /// A `managedConfigurationTemplate`: its values live in the EMM console, not in the policy.
    public static let templateNotCheckable = DiagnosticCode(
        "MC2062", "template-not-checkable",
        summary: "An AMAPI managedConfigurationTemplate names values kept by the EMM; they cannot be checked offline.")
    /// An AMAPI policy application without a `packageName`, or a policy that is not the shape AMAPI reads.
    public static let invalidPolicyApplication = DiagnosticCode(
        "MC2063", "invalid-policy-application",
        summary: "An AMAPI policy's application has no packageName, or its managedConfiguration is not an object.")

    // MARK: Lint of app_restrictions.xml: the checks of Android Lint's ValidRestrictions

    /// `android:key`, `android:title` or `android:restrictionType` missing.
    public static let missingRestrictionAttribute = DiagnosticCode(
        "MC3030", "missing-restriction-attribute",
        summary: "A restriction lacks android:key, android:title or android:restrictionType.")
    /// A `restrictionType` Android does not have.
    public static let unknownRestrictionType = DiagnosticCode(
        "MC3031", "unknown-restriction-type",
        summary:
            "The restriction type is not bool, string, integer, choice, multi-select, hidden, bundle or bundle_array.")
    /// The same key twice in one file.
    public static let duplicateRestrictionKey = DiagnosticCode(
        "MC3032", "duplicate-restriction-key", summary: "Two restrictions of one file have the same key.")
    /// A key written as a resource reference.
    public static let keyIsReference = DiagnosticCode(
        "MC3033", "key-is-reference", summary: "A restriction key is a resource reference; keys cannot be localized.")
    /// A `choice` or `multi-select` without `entries` or `entryValues`.
    public static let missingEntries = DiagnosticCode(
        "MC3034", "missing-entries", summary: "A choice or multi-select restriction lacks entries or entryValues.")
    /// A `hidden` restriction without a default.
    public static let hiddenWithoutDefault = DiagnosticCode(
        "MC3035", "hidden-without-default", summary: "A hidden restriction has no android:defaultValue.")
    /// An `integer` default that does not parse.
    public static let invalidIntegerDefault = DiagnosticCode(
        "MC3036", "invalid-integer-default",
        summary: "An integer restriction's default is not a whole number in the signed 32-bit range.")
    /// Children under a restriction that is not a bundle or bundle array.
    public static let unexpectedNesting = DiagnosticCode(
        "MC3037", "unexpected-nesting",
        summary: "Only bundle and bundle_array restrictions may hold nested restrictions.")
    /// A default on a bundle or bundle array.
    public static let containerDefault = DiagnosticCode(
        "MC3038", "container-default", summary: "A bundle or bundle_array restriction has a default value.")
    /// A bundle array that does not hold exactly one bundle.
    public static let bundleArrayShape = DiagnosticCode(
        "MC3039", "bundle-array-shape", summary: "A bundle_array must hold exactly one restriction, of type bundle.")
    /// A bundle with no restrictions inside.
    public static let emptyBundle = DiagnosticCode(
        "MC3040", "empty-bundle", summary: "A bundle restriction holds no nested restriction.")
    /// Restrictions nested deeper than Android allows.
    public static let restrictionsTooDeep = DiagnosticCode(
        "MC3041", "restrictions-too-deep", summary: "Restrictions are nested more than 20 levels deep.")
    /// More restrictions than Android allows in one file.
    public static let tooManyRestrictions = DiagnosticCode(
        "MC3042", "too-many-restrictions", summary: "The file declares more than 1,000 restrictions.")
    /// An element that is not `<restriction>` where restrictions are listed.
    public static let unexpectedElement = DiagnosticCode(
        "MC3043", "unexpected-element", summary: "An element other than <restriction> inside <restrictions>.")

    // MARK: Lint of app_restrictions.xml: what Android Lint misses

    /// `entries` and `entryValues` of different lengths.
    public static let entriesLengthMismatch = DiagnosticCode(
        "MC3044", "entries-length-mismatch",
        summary: "A restriction's entries and entryValues have different numbers of items.")
    /// A `choice` default that is not one of the `entryValues`.
    public static let defaultNotAChoice = DiagnosticCode(
        "MC3045", "default-not-a-choice", summary: "A choice restriction's default is not one of its entryValues.")
    /// A `multi-select` default with a value outside the `entryValues`.
    public static let defaultNotASubset = DiagnosticCode(
        "MC3046", "default-not-a-subset",
        summary: "A multi-select restriction's default holds a value that is not one of its entryValues.")
    /// The same value twice among `entryValues`.
    public static let duplicateEntryValue = DiagnosticCode(
        "MC3047", "duplicate-entry-value", summary: "A restriction's entryValues hold the same value twice.")
    /// A `bool` default other than `true` or `false`.
    public static let invalidBoolDefault = DiagnosticCode(
        "MC3048", "invalid-bool-default", summary: "A bool restriction's default is neither true nor false.")
    /// No description for an admin to read.
    public static let missingRestrictionDescription = DiagnosticCode(
        "MC3049", "missing-restriction-description",
        summary: "A restriction has no android:description; EMM consoles show admins nothing but its title.")
    /// A `@string/` or `@array/` reference the app's resources do not define.
    public static let unresolvedResource = DiagnosticCode(
        "MC3050", "unresolved-resource",
        summary: "A @string/ or @array/ reference that the app's res/values files do not define.")
    /// A field of Google Play's `ManagedProperty` JSON with a wrong or unknown value.
    public static let invalidManagedProperty = DiagnosticCode(
        "MC3051", "invalid-managed-property",
        summary: "A ManagedProperty JSON schema has a missing, unknown or wrongly typed field.")

    // MARK: Signed profiles

    /// Who signed a profile (and, with `--ca`, that the chain verified).
    public static let signedProfile = DiagnosticCode(
        "MC2064", "signed-profile", summary: "The profile is signed (CMS); the finding names the signer.")
    /// A signature that cannot be read or does not verify.
    public static let signatureInvalid = DiagnosticCode(
        "MC2065", "signature-invalid",
        summary: "A signed profile whose CMS message does not parse, or whose signature or chain does not verify with --ca.")

    static let androidCodes: [DiagnosticCode] = [
        signedProfile, signatureInvalid,
        hiddenValueChanged, templateNotCheckable, invalidPolicyApplication, missingRestrictionAttribute,
        unknownRestrictionType, duplicateRestrictionKey, keyIsReference, missingEntries, hiddenWithoutDefault,
        invalidIntegerDefault, unexpectedNesting, containerDefault, bundleArrayShape, emptyBundle, restrictionsTooDeep,
        tooManyRestrictions, unexpectedElement, entriesLengthMismatch, defaultNotAChoice, defaultNotASubset,
        duplicateEntryValue, invalidBoolDefault, missingRestrictionDescription, unresolvedResource,
        invalidManagedProperty,
    ]
}
