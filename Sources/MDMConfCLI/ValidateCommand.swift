import ArgumentParser
import ConfigSchema
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics
import PropertyList

/// `--mdm jamf|intune|workspaceone|fleet|any` names the MDM whose variable syntax a configuration uses.
extension MDM: ExpressibleByArgument {}
/// `--enrollment supervised|device|user|shared-ipad|dep`.
extension Enrollment: ExpressibleByArgument {}
/// `--schema-source apple|manifest`.
extension SchemaDiscovery.SchemaSource: ExpressibleByArgument {}

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check managed app configurations against their declared schema.",
        discussion: """
            The schema is found by the configuration's domain (its file name without .plist, or --app) among the
            AppConfig specfiles and ProfileManifests in MDMCONF_SCHEMA_PATH, ./Schemas and the bundled Schemas/
            folder, matched by the id each declares (bundleId, pfm_domain). Without a schema, syntax and
            structure are checked and one warning says so.

            Android: a managed-configuration JSON object is checked against the app's app_restrictions.xml (or \
            Google Play's managed properties JSON), found by package name like the other schemas; an Android \
            Management API policy (a JSON object with applications[]) has each application's managedConfiguration \
            checked against the schema of its packageName. --res names the app's res/ folder when the schema is not \
            inside one.

            A signed profile (CMS, as MDMs and Apple Configurator sign them) is checked by the plist it holds; \
            the signer is reported, and with --ca the signature and the signer's chain are verified.

            A configuration profile (.mobileconfig, PayloadType Configuration) is checked payload by payload
            against Apple's YAML schemas on the search path (a checkout of apple/device-management): TopLevel,
            CommonPayloadKeys and each PayloadType. With --platform, --os-version and --enrollment, the OS and
            enrollment each payload and key needs are checked too.

            Exit codes: 0 every file valid, 1 a file has errors (or warnings with --strict), 64 usage error,
            66 a file cannot be read, 78 the schema cannot be used (its findings are printed).
            """
    )

    @Argument(help: "Configuration plists to check (XML, binary or JSON); - reads standard input.")
    var configs: [String]

    @Option(
        name: .long,
        help: ArgumentHelp("Schema to check against (specfile, manifest, Apple YAML or Android).", valueName: "file"))
    var schema: String?

    @Option(name: .long, help: ArgumentHelp("Look the schema up by this id instead of the file name.", valueName: "id"))
    var app: String?

    @Option(name: .long, help: "MDM variable syntax: jamf, intune, workspaceone, fleet or any.")
    var mdm: MDM = .any

    @Option(
        name: .long,
        help: ArgumentHelp("Plist dict of MDM variable values to substitute before checking.", valueName: "file"))
    var resolve: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Warn about keys not available on this platform (iOS, macOS …).", valueName: "name"))
    var platform: String?

    @Option(
        name: .customLong("os-version"), help: ArgumentHelp("With --platform: the OS version.", valueName: "version"))
    var osVersion: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --platform: how the device is enrolled (supervised, device, user, shared-ipad, dep).",
            valueName: "kind"))
    var enrollment: Enrollment?

    @Option(
        name: .customLong("payload-type"),
        help: ArgumentHelp(
            "Each file is one bare payload of this PayloadType, checked against Apple's schema of it.",
            valueName: "type"))
    var payloadType: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "An Android app's res/ folder, for the @string/ and @array/ references of its app_restrictions.xml.",
            valueName: "dir"))
    var res: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "PEM certificates a signed profile's signer must chain to; without it the signer is reported unverified.",
            valueName: "file"))
    var ca: String?

    @Option(
        name: .customLong("schema-source"),
        help: ArgumentHelp(
            "When Apple's YAML and a ProfileManifest on the search path both describe a payload type, use only this "
                + "one (default: Apple's, with the manifest's conditions, titles and extra keys added).",
            valueName: "apple|manifest"))
    var schemaSource: SchemaDiscovery.SchemaSource?

    @OptionGroup var report: ReportOptions
    @OptionGroup var limits: ReaderLimitOptions

    func validate() throws {
        if configs.isEmpty { throw ValidationError("name at least one configuration to validate") }
        if osVersion != nil && platform == nil { throw ValidationError("--os-version needs --platform") }
        if enrollment != nil && platform == nil { throw ValidationError("--enrollment needs --platform") }
        if payloadType != nil && (schema != nil || app != nil) {
            throw ValidationError("--payload-type cannot go with --schema or --app")
        }
    }

    var settings: Validate {
        Validate(
            configs: configs, schema: schema, app: app, mdm: mdm, resolve: resolve, platform: platform,
            osVersion: osVersion, enrollment: enrollment, payloadType: payloadType, res: res, ca: ca,
            schemaSource: schemaSource, report: report.settings, maxSize: limits.maxSize.bytes)
    }

    func run() throws { try settings.run() }
}

/// What `mdmconf validate` was asked, however its arguments were read (``QuickArguments`` or ArgumentParser).
struct Validate: Equatable {
    var configs: [String]
    var schema: String?
    var app: String?
    var mdm: MDM = .any
    var resolve: String?, platform: String?, osVersion: String?, enrollment: Enrollment?, payloadType: String?
    var res: String?, ca: String?, schemaSource: SchemaDiscovery.SchemaSource?, report: ReportSettings, maxSize: Int

    private var readerOptions: PlistReaderOptions { ReaderLimitOptions.readerOptions(maxSize: maxSize) }

    func run() throws {
        var options = ValidationOptions(mdm: mdm, platform: platform, osVersion: osVersion, enrollment: enrollment)
        if let resolve { options.resolvedVariables = try loadValues(resolve) }
        var discovery = SchemaDiscovery.standard()
        discovery.source = schemaSource
        var validation = ConfigValidation(
            readerOptions: readerOptions, options: options, schemaPath: schema, appID: app, discovery: discovery)
        validation.payloadType = payloadType
        validation.androidResources = res
        if let ca {
            guard case .bytes(let bytes)? = try? InputFile.read(ca, limit: 4 << 20) else {
                Console.error("error: cannot read --ca \(ca)\n")
                throw ExitStatus.unreadableInput.exitCode
            }
            do {
                validation.trustRoots = try SignedProfile.certificates(pem: String(decoding: bytes, as: UTF8.self))
            } catch {
                Console.error("error: --ca \(ca): \(error.reason)\n")
                throw ExitStatus.usage.exitCode
            }
        }
        let outcome = validation.run(InputPaths.expand(configs, extensions: ["plist", "json", "mobileconfig"]))
        defer { UntilExit.keep(outcome) }
        if let failure = outcome.schemaFailure {
            report.print(DiagnosticReport(files: [failure.report]), sources: [failure].sources)
            throw (failure.unreadable ? ExitStatus.unreadableInput : ExitStatus.invalidConfiguration).exitCode
        }
        let diagnosticReport = DiagnosticReport(files: outcome.files.map(\.report))
        report.print(diagnosticReport, sources: outcome.files.sources)
        if outcome.files.contains(where: \.unreadable) { throw ExitStatus.unreadableInput.exitCode }
        if (report.strict ? diagnosticReport.strict() : diagnosticReport).files.contains(where: { !$0.isValid }) {
            throw ExitStatus.findings.exitCode
        }
    }

    /// The `--resolve` file: a dict of variable names to strings.
    private func loadValues(_ path: String) throws -> [String: String] {
        let document: PlistDocument
        do {
            document = try PropertyListReader(options: readerOptions).readFile(path).document
        } catch {
            Console.error("error: cannot read \(error.path): \(error.reason)\n")
            throw ExitStatus.unreadableInput.exitCode
        }
        guard !document.hasErrors, case .dictionary(let dict)? = document.root?.value else {
            Console.error("error: \(path) must be a plist dict of variable names to strings\n")
            throw ExitStatus.invalidConfiguration.exitCode
        }
        var values: [String: String] = [:]
        for entry in dict.entries {
            guard case .string(let text) = entry.value.value else {
                Console.error("error: \(path): '\(entry.key)' must be a string\n")
                throw ExitStatus.invalidConfiguration.exitCode
            }
            values[entry.key] = text
        }
        return values
    }
}
