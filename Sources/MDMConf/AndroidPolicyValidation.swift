import ConfigSchema
import MDMDiagnostics
import PropertyList

/// `mdmconf validate` of a whole Android Management API policy: every `applications[]` item with a
/// `managedConfiguration` checked against the schema of its `packageName`.
struct AndroidPolicyValidation {
    var options: ValidationOptions
    /// `--schema`: used for the applications whose package it declares (or for every application when it declares
    /// none, as an `app_restrictions.xml` outside an app tree).
    var explicitSchema: ConfigSchema?
    /// The schema of a package on the search path.
    var schema: (String) -> ConfigSchema?

    /// True when `document` is a policy: a JSON object whose `applications` is an array, unless `schema` (the one
    /// found for the file) is Android's and declares `applications` as a key of its own.
    static func recognizes(_ document: PlistDocument, schema: ConfigSchema?) -> Bool {
        guard document.shape == .json, case .dictionary(let root)? = document.root?.value,
            case .array? = root["applications"]?.value
        else { return false }
        return schema?.root.child("applications") == nil
    }

    func validate(_ document: PlistDocument) -> [Diagnostic] {
        guard case .dictionary(let root)? = document.root?.value, case .array(let applications)? = root["applications"]?.value
        else { return document.diagnostics }
        var findings = document.diagnostics
        for (index, application) in applications.enumerated() {
            let path = KeyPath([.key("applications"), .index(index)])
            func finding(_ code: DiagnosticCode, _ severity: Severity, _ message: String, at position: SourcePosition,
                         path: KeyPath, hint: String? = nil) -> Diagnostic {
                Diagnostic(
                    code, severity: severity, message: message,
                    location: SourceLocation(file: document.file, position: position), keyPath: path.diagnosticValue,
                    hint: hint)
            }
            guard case .dictionary(let app) = application.value else {
                findings.append(
                    finding(SchemaCode.invalidPolicyApplication, .error, "an application is an object",
                            at: application.position, path: path))
                continue
            }
            guard case .string(let package)? = app["packageName"]?.value, !package.isEmpty else {
                if app["managedConfiguration"] != nil {
                    findings.append(
                        finding(
                            SchemaCode.invalidPolicyApplication, .error,
                            "the application has a managedConfiguration but no packageName", at: application.position,
                            path: path, hint: "AMAPI names each application by its packageName"))
                }
                continue
            }
            if let template = app.entry("managedConfigurationTemplate") {
                findings.append(
                    finding(
                        SchemaCode.templateNotCheckable, .info,
                        "\(package) takes its configuration from a managedConfigurationTemplate, kept by the EMM",
                        at: template.keyPosition, path: path.appending(.key("managedConfigurationTemplate")),
                        hint: "export the configuration as managedConfiguration JSON to check its values"))
            }
            guard let configuration = app["managedConfiguration"] else { continue }
            let at = path.appending(.key("managedConfiguration"))
            guard case .dictionary = configuration.value else {
                findings.append(
                    finding(
                        SchemaCode.invalidPolicyApplication, .error,
                        "managedConfiguration must be an object, found \(ValueType.of(configuration.value).rawValue)",
                        at: configuration.position, path: at))
                continue
            }
            let chosen =
                explicitSchema.flatMap { $0.id.isEmpty || $0.id == package ? $0 : nil } ?? schema(package)
            guard let chosen else {
                findings.append(
                    finding(
                        SchemaCode.noSchema, .warning, "no schema found for '\(package)'; its values were not checked",
                        at: configuration.position, path: at,
                        hint: "pass --schema app_restrictions.xml, or add the app's schema to MDMCONF_SCHEMA_PATH"))
                continue
            }
            findings += Validator.validate(
                configuration, file: document.file, against: chosen, at: at, options: options, json: true)
        }
        return findings
    }
}
