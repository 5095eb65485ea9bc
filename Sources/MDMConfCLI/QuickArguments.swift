import ArgumentParser
import ConfigSchema
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics
import PropertyList

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The plain invocations scripts make most — `mdmconf lint FILE…`, `mdmconf validate --schema S FILE…`,
/// `mdmconf update-check --policy P …` with long options — read without ArgumentParser, whose first parse in a
/// process costs about 2.5 ms of runtime reflection (Mirror over the command's property wrappers and
/// protocol-conformance lookups), longer than the check itself. Anything else (help, short or unknown options,
/// `--`, a repeated option, a value ArgumentParser would refuse, a missing argument) is declined and goes through
/// ArgumentParser, which gives the usual help and errors. `QuickArgumentsTests` proves that every invocation read here gives exactly what ArgumentParser gives.
struct QuickArguments {
    enum Kind { case flag, value }

    private(set) var positional: [String] = []
    private(set) var values: [String: String] = [:]
    private(set) var flags: Set<String> = []

    /// nil when `arguments` holds anything but positionals and the `--long` options of `options`.
    init?(_ arguments: ArraySlice<String>, options: [String: Kind]) {
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if argument == "-" || !argument.hasPrefix("-") {
                positional.append(argument)
                continue
            }
            guard argument.hasPrefix("--"), argument.count > 2 else { return nil }
            var name = Substring(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = name[..<equals]
            }
            let key = String(name)
            switch options[key] {
            case nil:
                return nil
            case .flag?:
                guard inline == nil, flags.insert(key).inserted else { return nil }
            case .value?:
                guard values[key] == nil else { return nil }
                if let inline {
                    values[key] = inline
                } else {
                    guard index < arguments.endIndex,
                        arguments[index] == "-" || !arguments[index].hasPrefix("-")
                    else { return nil }
                    values[key] = arguments[index]
                    index += 1
                }
            }
        }
    }

    private static let reportOptions: [String: Kind] = ["format": .value, "strict": .flag, "max-size": .value]

    /// `report` and `maxSize` as ``ReportOptions`` and ``ReaderLimitOptions`` would read them, nil when a value
    /// is not one they accept.
    private func common() -> (report: ReportSettings, maxSize: Int)? {
        var report = ReportSettings()
        if let format = values["format"] {
            guard let parsed = ReportFormat(argument: format) else { return nil }
            report.format = parsed
        }
        report.strict = flags.contains("strict")
        var maxSize = ReaderLimitOptions.defaultMaxSize
        if let text = values["max-size"] {
            guard let parsed = ByteCount(argument: text) else { return nil }
            maxSize = parsed.bytes
        }
        return (report, maxSize)
    }

    /// `mdmconf lint …` (without the subcommand name), or nil to let ArgumentParser read it.
    static func lint(_ arguments: ArraySlice<String>) -> Lint? {
        let options = reportOptions.merging(["res": .value], uniquingKeysWith: { first, _ in first })
        guard let quick = QuickArguments(arguments, options: options), !quick.positional.isEmpty,
            let (report, maxSize) = quick.common()
        else { return nil }
        return Lint(files: quick.positional, res: quick.values["res"], report: report, maxSize: maxSize)
    }

    /// `mdmconf validate …` (without the subcommand name), or nil to let ArgumentParser read it.
    static func validate(_ arguments: ArraySlice<String>) -> Validate? {
        let options = reportOptions.merging(
            [
                "schema": .value, "app": .value, "mdm": .value, "resolve": .value, "platform": .value,
                "os-version": .value, "enrollment": .value, "payload-type": .value, "res": .value, "ca": .value,
                "schema-source": .value,
            ], uniquingKeysWith: { first, _ in first })
        guard let quick = QuickArguments(arguments, options: options), !quick.positional.isEmpty,
            let (report, maxSize) = quick.common()
        else { return nil }
        var mdm = MDM.any
        if let text = quick.values["mdm"] {
            guard let parsed = MDM(argument: text) else { return nil }
            mdm = parsed
        }
        let values = quick.values
        if (values["os-version"] != nil || values["enrollment"] != nil) && values["platform"] == nil { return nil }
        if values["payload-type"] != nil && (values["schema"] != nil || values["app"] != nil) { return nil }
        var enrollment: Enrollment?
        if let text = values["enrollment"] {
            guard let parsed = Enrollment(rawValue: text) else { return nil }
            enrollment = parsed
        }
        var source: SchemaDiscovery.SchemaSource?
        if let text = values["schema-source"] {
            guard let parsed = SchemaDiscovery.SchemaSource(rawValue: text) else { return nil }
            source = parsed
        }
        return Validate(
            configs: quick.positional, schema: values["schema"], app: values["app"], mdm: mdm,
            resolve: values["resolve"], platform: values["platform"], osVersion: values["os-version"],
            enrollment: enrollment, payloadType: values["payload-type"], res: values["res"], ca: values["ca"],
            schemaSource: source, report: report, maxSize: maxSize)
    }

    /// The request flags of `update-check`, by option name, and the JSON field each sets.
    private static let requestFlags: [(option: String, field: String)] = [
        ("app", "app"), ("version", "version"), ("build", "build"), ("platform", "platform"),
        ("os-version", "osVersion"), ("device-model", "deviceModel"), ("device-id", "deviceId"),
        ("channel", "channel"), ("locale", "locale"), ("time-zone", "timeZone"), ("now", "now"),
        ("deferrals-used", "deferralsUsed"), ("enrolled-at", "enrolledAt"),
    ]

    /// `mdmconf update-check …` (without the subcommand name), or nil to let ArgumentParser read it.
    static func updateCheck(_ arguments: ArraySlice<String>) -> UpdateCheck? {
        var options: [String: Kind] = ["policy": .value, "request": .value, "format": .value, "max-size": .value]
        options["explain"] = .flag
        for flag in requestFlags { options[flag.option] = .value }
        guard let quick = QuickArguments(arguments, options: options), quick.positional.isEmpty,
            let policy = quick.values["policy"]
        else { return nil }
        var check = UpdateCheck(policy: policy, flags: [:], maxSize: ReaderLimitOptions.defaultMaxSize)
        check.request = quick.values["request"]
        check.now = quick.values["now"]
        for flag in requestFlags { if let value = quick.values[flag.option] { check.flags[flag.field] = value } }
        if let text = quick.values["format"] {
            guard let format = UpdateCheckCommand.OutputFormat(argument: text) else { return nil }
            check.format = format
        }
        check.explain = quick.flags.contains("explain")
        if let text = quick.values["max-size"] {
            guard let parsed = ByteCount(argument: text) else { return nil }
            check.maxSize = parsed.bytes
        }
        // UpdateCheckCommand.validate's rules: anything it would refuse is left to it.
        if check.request != nil && !check.flags.isEmpty { return nil }
        if check.request == nil
            && (check.flags["app"] == nil || check.flags["version"] == nil
                || check.flags["platform"] == nil)
        {
            return nil
        }
        if check.request == "-" && policy == "-" { return nil }
        return check
    }

    /// Runs `mdmconf ARGUMENTS` when it is a plain `lint`, `validate` or `update-check`; returns only when it is
    /// not.
    static func runIfPlain(_ arguments: [String]) {
        guard let command = arguments.first else { return }
        let rest = arguments.dropFirst()
        let run: (() throws -> Void)?
        switch command {
        case "lint": run = lint(rest).map { lint in { try lint.run() } }
        case "validate": run = validate(rest).map { validate in { try validate.run() } }
        case "update-check": run = updateCheck(rest).map { check in { try check.run() } }
        default: run = nil
        }
        guard let run else { return }
        do {
            try run()
            exit(0)
        } catch let code as ExitCode {
            exit(code.rawValue)
        } catch {
            MDMConfCommand.exit(withError: error)
        }
    }
}
