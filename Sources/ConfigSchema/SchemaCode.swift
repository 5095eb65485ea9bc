import MDMDiagnostics

/// Codes of configuration validation (`MC2xxx`) and schema lint (`MC3xxx`). Never renumber one.
public enum SchemaCode {
    // MARK: Validation of a configuration against its schema

    /// A managed app configuration must be a dictionary at its root.
    public static let rootNotDictionary = DiagnosticCode(
        "MC2001", "root-not-dict", summary: "A managed app configuration must be a dictionary at its root.")
    /// The schema does not declare this key (schemas can lag apps).
    public static let unknownKey = DiagnosticCode(
        "MC2002", "unknown-key", summary: "The schema does not declare this key (schemas can lag apps).")
    /// The value has a type the schema does not allow; nothing is coerced.
    public static let typeMismatch = DiagnosticCode(
        "MC2003", "type-mismatch", summary: "The value has a type the schema does not allow; nothing is coerced.")
    /// A required key (or a key required by a condition) is absent.
    public static let missingRequiredKey = DiagnosticCode(
        "MC2004", "missing-required-key", summary: "A required key (or a key required by a condition) is absent.")
    /// The value is not one of the schema's allowed values.
    public static let valueNotAllowed = DiagnosticCode(
        "MC2005", "value-not-allowed", summary: "The value is not one of the schema's allowed values.")
    /// A number or date lies outside the schema's minimum and maximum.
    public static let outOfRange = DiagnosticCode(
        "MC2006", "out-of-range", summary: "A number or date lies outside the schema's minimum and maximum.")
    /// A string is shorter or longer than the schema allows.
    public static let lengthOutOfRange = DiagnosticCode(
        "MC2007", "length-out-of-range", summary: "A string is shorter or longer than the schema allows.")
    /// A string does not match the schema's pattern (whole value).
    public static let patternMismatch = DiagnosticCode(
        "MC2008", "pattern-mismatch", summary: "A string does not match the schema's pattern (whole value).")
    /// An array has fewer or more items than the schema allows.
    public static let countOutOfRange = DiagnosticCode(
        "MC2009", "count-out-of-range", summary: "An array has fewer or more items than the schema allows.")
    /// An array the schema declares unique holds the same item twice.
    public static let duplicateItems = DiagnosticCode(
        "MC2010", "duplicate-items", summary: "An array the schema declares unique holds the same item twice.")
    /// The key is present although a condition of the schema excludes it.
    public static let excludedKey = DiagnosticCode(
        "MC2011", "excluded-key", summary: "The key is present although a condition of the schema excludes it.")
    /// A required key holds an empty string or an empty array.
    public static let emptyRequiredValue = DiagnosticCode(
        "MC2012", "empty-required-value", summary: "A required key holds an empty string or an empty array.")
    /// The value holds an MDM variable; checks of its text wait until the MDM substitutes it.
    public static let variableDeferred = DiagnosticCode(
        "MC2020", "variable-deferred",
        summary: "The value holds an MDM variable; checks of its text wait until the MDM substitutes it.")
    /// An MDM variable stands where the schema declares a non-string type.
    public static let variableInNonString = DiagnosticCode(
        "MC2021", "variable-in-non-string",
        summary: "An MDM variable stands where the schema declares a non-string type.")
    /// A token that looks like an MDM variable is not one the chosen MDM knows.
    public static let unknownVariable = DiagnosticCode(
        "MC2022", "unknown-variable",
        summary: "A token that looks like an MDM variable is not one the chosen MDM knows.")
    /// --resolve gave no value for an MDM variable in the configuration.
    public static let unresolvedVariable = DiagnosticCode(
        "MC2023", "unresolved-variable", summary: "--resolve gave no value for an MDM variable in the configuration.")
    /// The schema marks the key deprecated.
    public static let deprecatedKey = DiagnosticCode(
        "MC2030", "deprecated-key", summary: "The schema marks the key deprecated.")
    /// The key is not available on the given platform or OS version.
    public static let unavailableKey = DiagnosticCode(
        "MC2031", "unavailable-key", summary: "The key is not available on the given platform or OS version.")
    /// The schema requires the key on some platforms only and no --platform was given to decide.
    public static let platformConditional = DiagnosticCode(
        "MC2032", "platform-conditional",
        summary: "The schema requires the key on some platforms only and no --platform was given to decide.")
    /// No schema was found for the configuration; only syntax and structure were checked.
    public static let noSchema = DiagnosticCode(
        "MC2040", "no-schema",
        summary: "No schema was found for the configuration; only syntax and structure were checked.")
    /// The file looks like another kind of plist (a launchd job, a feedback response), not an app configuration.
    public static let notAConfiguration = DiagnosticCode(
        "MC2041", "not-a-configuration",
        summary:
            "The file looks like another kind of plist (a launchd job, a feedback response), not an app configuration.")

    // MARK: Lint of a schema

    /// The specfile does not follow the AppConfig specfile XSD.
    public static let structure = DiagnosticCode(
        "MC3001", "schema-structure", summary: "The specfile does not follow the AppConfig specfile XSD.")
    /// Two keys of one schema have the same name.
    public static let duplicateKeyName = DiagnosticCode(
        "MC3002", "duplicate-key-name", summary: "Two keys of one schema have the same name.")
    /// The specfile <version> is missing or not an integer of at least 1.
    public static let invalidVersion = DiagnosticCode(
        "MC3003", "invalid-version", summary: "The specfile <version> is missing or not an integer of at least 1.")
    /// The bundle id is missing or holds characters other than letters, digits, '-' and '.'.
    public static let invalidBundleID = DiagnosticCode(
        "MC3004", "invalid-bundle-id",
        summary: "The bundle id is missing or holds characters other than letters, digits, '-' and '.'.")
    /// A key's default value fails the key's own constraints.
    public static let defaultViolatesConstraint = DiagnosticCode(
        "MC3005", "default-violates-constraint", summary: "A key's default value fails the key's own constraints.")
    /// A pattern does not compile; the schema cannot be used.
    public static let invalidPattern = DiagnosticCode(
        "MC3006", "invalid-pattern", summary: "A pattern does not compile; the schema cannot be used.")
    /// A minimum is greater than its maximum.
    public static let minGreaterThanMax = DiagnosticCode(
        "MC3007", "min-greater-than-max", summary: "A minimum is greater than its maximum.")
    /// A bound, allowed value or default does not parse as the key's type.
    public static let invalidConstraintValue = DiagnosticCode(
        "MC3008", "invalid-constraint-value",
        summary: "A bound, allowed value or default does not parse as the key's type.")
    /// A presentation field's type does not suit its key's type.
    public static let fieldTypeMismatch = DiagnosticCode(
        "MC3009", "field-type-mismatch", summary: "A presentation field's type does not suit its key's type.")
    /// A presentation field names a key the schema does not declare.
    public static let fieldUnknownKey = DiagnosticCode(
        "MC3010", "field-unknown-key", summary: "A presentation field names a key the schema does not declare.")
    /// Two presentation fields name the same key.
    public static let duplicateField = DiagnosticCode(
        "MC3011", "duplicate-field", summary: "Two presentation fields name the same key.")
    /// A localized text has no language for the presentation's defaultLocale.
    public static let missingLocale = DiagnosticCode(
        "MC3012", "missing-locale", summary: "A localized text has no language for the presentation's defaultLocale.")
    /// A user or device variable is not one the specfile format defines.
    public static let invalidVariable = DiagnosticCode(
        "MC3013", "invalid-variable", summary: "A user or device variable is not one the specfile format defines.")
    /// A presentation option's value is not a valid value of its key.
    public static let optionNotAllowed = DiagnosticCode(
        "MC3014", "option-not-allowed", summary: "A presentation option's value is not a valid value of its key.")
    /// A manifest key that is not part of the ProfileManifests format.
    public static let unknownManifestKey = DiagnosticCode(
        "MC3015", "unknown-manifest-key", summary: "A manifest key that is not part of the ProfileManifests format.")
    /// A manifest key holds a value of the wrong type or an unknown value.
    public static let invalidManifestValue = DiagnosticCode(
        "MC3016", "invalid-manifest-value",
        summary: "A manifest key holds a value of the wrong type or an unknown value.")
    /// Two schemas on the search path declare the same id; the first wins.
    public static let duplicateSchemaID = DiagnosticCode(
        "MC3017", "duplicate-schema-id", summary: "Two schemas on the search path declare the same id; the first wins.")
    /// The file is neither an AppConfig specfile, a ProfileManifest nor one of Apple's YAML schemas.
    public static let notASchema = DiagnosticCode(
        "MC3018", "not-a-schema",
        summary: "The file is neither an AppConfig specfile, a ProfileManifest nor one of Apple's YAML schemas.")
    // MARK: Profiles against Apple's schemas

    /// A profile's payload type without a schema on the search path.
    public static let unknownPayloadType = DiagnosticCode(
        "MC2050", "unknown-payload-type", summary: "No schema on the search path describes the payload's PayloadType.")
    /// A PayloadUUID or PayloadIdentifier used twice in one profile.
    public static let duplicatePayloadID = DiagnosticCode(
        "MC2051", "duplicate-payload-id", summary: "Two payloads of one profile share a PayloadUUID or PayloadIdentifier.")
    /// A PayloadUUID that is not a UUID.
    public static let invalidPayloadUUID = DiagnosticCode(
        "MC2052", "invalid-payload-uuid", summary: "A PayloadUUID that is not a UUID.")
    /// A second payload of a type allowed once.
    public static let payloadNotMultiple = DiagnosticCode(
        "MC2053", "payload-not-multiple", summary: "A payload type that may be installed once appears twice.")
    /// Only a supervised device accepts the payload or key.
    public static let needsSupervision = DiagnosticCode(
        "MC2054", "needs-supervision", summary: "A payload or key that only a supervised device accepts.")
    /// The device's enrollment rules the payload or key out.
    public static let enrollmentForbids = DiagnosticCode(
        "MC2055", "enrollment-forbids",
        summary: "The device's enrollment (user, shared iPad, not automated) does not allow the payload or key.")
    /// The device's enrollment ignores the key.
    public static let enrollmentIgnores = DiagnosticCode(
        "MC2056", "enrollment-ignores", summary: "The device's enrollment accepts the key but ignores it.")
    /// The payload type is not on the platform or OS version.
    public static let unavailablePayload = DiagnosticCode(
        "MC2057", "unavailable-payload", summary: "The payload type is not available on the platform or OS version.")

    /// A YAML schema that does not parse.
    /// A declaration names an identifier the set does not have, or one of the wrong type.
    public static let unresolvedReference = DiagnosticCode(
        "MC2058", "unresolved-reference",
        summary: "A declaration names an identifier no declaration of the set has, or one of a type it may not name.")
    /// Declarations that name each other in a circle.
    public static let referenceCycle = DiagnosticCode(
        "MC2059", "reference-cycle", summary: "Declarations of the set name each other in a cycle.")

    /// A rule Apple states in prose for a declaration type, broken.
    public static let declarationRule = DiagnosticCode(
        "MC2060", "declaration-rule",
        summary: "A declaration breaks a rule Apple's documentation states in prose (one app named, an https asset URL).")

    /// A YAML schema does not parse as YAML.
    public static let yamlSyntax = DiagnosticCode(
        "MC3019", "yaml-syntax", summary: "A YAML schema does not parse as YAML.")
    /// A field Apple's YAML format does not have.
    public static let unknownAppleField = DiagnosticCode(
        "MC3020", "unknown-apple-field", summary: "A field that is not part of Apple's device-management YAML format.")
    /// A field of Apple's YAML format with a wrong or unknown value.
    public static let invalidAppleValue = DiagnosticCode(
        "MC3021", "invalid-apple-value",
        summary: "A field of Apple's YAML format holds a value of the wrong type or an unknown value.")

    /// Every code of this family, each documented in *Diagnostic codes*.

    public static let all: [DiagnosticCode] = [
        rootNotDictionary, unknownKey, typeMismatch, missingRequiredKey, valueNotAllowed, outOfRange, lengthOutOfRange,
        patternMismatch, countOutOfRange, duplicateItems, excludedKey, emptyRequiredValue, variableDeferred,
        variableInNonString, unknownVariable, unresolvedVariable, deprecatedKey, unavailableKey, platformConditional,
        noSchema,
        notAConfiguration, structure, duplicateKeyName, invalidVersion, invalidBundleID, defaultViolatesConstraint,
        invalidPattern, minGreaterThanMax, invalidConstraintValue, fieldTypeMismatch, fieldUnknownKey, duplicateField,
        missingLocale, invalidVariable, optionNotAllowed, unknownManifestKey, invalidManifestValue, duplicateSchemaID,
        notASchema, yamlSyntax, unknownAppleField, invalidAppleValue, unknownPayloadType, duplicatePayloadID,
        invalidPayloadUUID, payloadNotMultiple, needsSupervision, enrollmentForbids, enrollmentIgnores,
        unavailablePayload, unresolvedReference, referenceCycle, declarationRule,
    ] + androidCodes
}
