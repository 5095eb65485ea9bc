import ArgumentParser
import CivilTime
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics
import PropertyList
import UpdatePolicy

struct UpdateCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update-check",
        abstract: "Decide whether an installed app may continue, should update, or must update.",
        discussion: """
            The request comes from --request (a JSON object; - reads standard input) or from the flags, which set
            the field of the same name (--os-version sets osVersion; --version is the app's version). Values are
            validated like JSON fields: a bad value is exit 65 with the decision document, not a usage error.

            Exit codes: 0 ok, 10 recommended, 20 required, 30 unsupported (required, but the OS is too old),
            64 usage error, 65 invalid request, 66 missing file, 78 invalid policy document.
            """
    )

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(
        name: .long,
        help: ArgumentHelp("The update-policy document (XML plist, binary plist or JSON).", valueName: "file"))
    var policy: String

    @Option(name: .long, help: ArgumentHelp("The request as a JSON object; - reads standard input.", valueName: "file"))
    var request: String?

    @Option(name: .long, help: "The app's id (bundle id or package name).") var app: String?
    @Option(name: .long, help: "The app's marketing version.") var version: String?
    @Option(name: .long, help: "The app's build number.") var build: String?
    @Option(name: .long, help: "The platform (ios, ipados, macos, android, …).") var platform: String?
    @Option(name: .customLong("os-version"), help: "The device's OS version, e.g. 17.4.1 (a).") var osVersion: String?
    @Option(name: .customLong("device-model"), help: "The device model, e.g. iPhone15,2.") var deviceModel: String?
    @Option(name: .customLong("device-id"), help: "The device id, for rollout buckets.") var deviceID: String?
    @Option(name: .long, help: "The release channel (default stable).") var channel: String?
    @Option(name: .long, help: "The user's locale, for messages.") var locale: String?
    @Option(name: .customLong("time-zone"), help: "The device's IANA time zone.") var timeZone: String?
    @Option(name: .long, help: "The instant to decide at (RFC 3339 with Z or offset); default: now.") var now: String?
    @Option(name: .customLong("deferrals-used"), help: "Deferrals the user has used.") var deferralsUsed: String?
    @Option(name: .customLong("enrolled-at"), help: "When the device enrolled (RFC 3339 with Z or offset).")
    var enrolledAt: String?

    @Option(name: .long, help: "Output format: text or json.") var format: OutputFormat = .text
    @Flag(name: .long, help: "Add a per-policy trace of every check.") var explain = false
    @OptionGroup var limits: ReaderLimitOptions

    var flagValues: [String: String] {
        var values: [String: String] = [:]
        let pairs: [(String, String?)] = [
            ("app", app), ("version", version), ("build", build), ("platform", platform), ("osVersion", osVersion),
            ("deviceModel", deviceModel), ("deviceId", deviceID), ("channel", channel), ("locale", locale),
            ("timeZone", timeZone), ("now", now), ("deferralsUsed", deferralsUsed), ("enrolledAt", enrolledAt),
        ]
        for (key, value) in pairs { if let value { values[key] = value } }
        return values
    }

    func validate() throws {
        if request != nil && !flagValues.isEmpty {
            throw ValidationError("give the request either as --request or as flags, not both")
        }
        if request == nil && (app == nil || version == nil || platform == nil) {
            throw ValidationError("--app, --version and --platform are required without --request")
        }
        if request == "-" && policy == "-" {
            throw ValidationError("only one of --policy and --request can read standard input")
        }
    }

    var settings: UpdateCheck {
        UpdateCheck(
            policy: policy, request: request, flags: flagValues, now: now, format: format, explain: explain,
            maxSize: limits.maxSize.bytes)
    }

    func run() throws { try settings.run() }
}

/// What `mdmconf update-check` was asked, however its arguments were read (``QuickArguments`` or ArgumentParser).
struct UpdateCheck: Equatable {
    var policy: String
    var request: String?
    /// The request's fields given as flags, by JSON field name (`osVersion`), including `now`.
    var flags: [String: String]
    var now: String?
    var format: UpdateCheckCommand.OutputFormat = .text
    var explain = false
    var maxSize: Int

    private var readerOptions: PlistReaderOptions { ReaderLimitOptions.readerOptions(maxSize: maxSize) }

    func run() throws {
        let document = try loadPolicy()
        let clock = Instant.now
        let parsed: Result<UpdateRequest, RequestErrors>
        if let request {
            let bytes: [UInt8]
            do {
                guard case .bytes(let contents) = try InputFile.read(request, limit: readerOptions.maxInputSize)
                else {
                    throw ExitStatus.invalidRequest.exitCode
                }
                bytes = contents
            } catch let error as InputError {
                Console.error("error: cannot read \(error.path): \(error.reason)\n")
                throw ExitStatus.unreadableInput.exitCode
            }
            let json = JSONPlistReader(options: readerOptions, nullMembersAreAbsent: true).read(
                bytes, file: request)
            parsed =
                json.hasErrors
                ? .failure(RequestErrors(reasons: ["malformed_request"])) : UpdateRequest.parse(json.root)
        } else {
            parsed = UpdateRequest.parse(flags)
        }
        let decision: Decision
        switch parsed {
        case .success(let request): decision = Evaluator(document).evaluate(request, now: clock, explain: explain)
        case .failure(let errors):
            // `evaluatedAt` is the request's now when valid, else the clock.
            let requestNow = (request == nil ? now : nil).flatMap { PolicyDateTime($0) }.flatMap { value -> Instant? in
                if case .absolute(let instant) = value.kind { instant } else { nil }
            }
            decision = .invalidRequest(errors, evaluatedAt: requestNow ?? clock)
        }
        switch format {
        case .json:
            Console.out(decision.json.serialized())
        case .text:
            Console.out(DecisionText(decision, zone: parsed.zone).render())
        }
        if decision.exitCode != 0 { throw ExitCode(decision.exitCode) }
    }

    /// The policy document, or exit 66 (unreadable) / 78 (invalid) with every finding.
    private func loadPolicy() throws -> PolicyDocument {
        let contents: InputFile.Contents
        do {
            contents = try InputFile.read(policy, limit: readerOptions.maxInputSize)
        } catch {
            Console.error("error: cannot read \(error.path): \(error.reason)\n")
            throw ExitStatus.unreadableInput.exitCode
        }
        let name = policy == "-" ? InputFile.standardInputName : policy
        let bytes: [UInt8]
        switch contents {
        case .bytes(let read): bytes = read
        case .tooLarge(let size):
            report(
                [PlistCode.fileTooLarge(size: size, limit: readerOptions.maxInputSize, file: name)], source: [],
                file: name)
            throw ExitStatus.invalidConfiguration.exitCode
        }
        let loaded = PolicyLoader(readerOptions: readerOptions).load(bytes, file: name)
        guard let document = loaded.document else {
            report(loaded.diagnostics.filter { $0.severity == .error }, source: bytes, file: name)
            throw ExitStatus.invalidConfiguration.exitCode
        }
        return document
    }

    private func report(_ diagnostics: [Diagnostic], source: [UInt8], file: String) {
        switch format {
        case .json:
            let renderer = JSONRenderer()
            let list: [JSONValue] = diagnostics.map { diagnostic in
                guard case .object(var members) = renderer.render(diagnostic) else { return .null }
                members.append(("reason", .string(UpdatePolicyCode.reason(diagnostic.code))))
                return .object(members)
            }
            let error: JSONValue = .object([
                (
                    "error",
                    .object([
                        ("code", .string("invalid_policy")),
                        (
                            "message",
                            .string("\(file) is not a valid update-policy document (\(diagnostics.count) errors)")
                        ),
                        ("diagnostics", .array(list)),
                    ])
                )
            ])
            Console.out(error.serialized())
        case .text:
            let renderer = TextRenderer(
                options: RenderOptions(color: Console.stderrColorEnabled, sources: [file: SourceText(source)]))
            for diagnostic in diagnostics {
                var text = renderer.render(diagnostic)
                // Compiler style, ending with the reason code of *Update policies*.
                if let newline = text.firstIndex(of: "\n") {
                    text.insert(contentsOf: " (\(UpdatePolicyCode.reason(diagnostic.code)))", at: newline)
                }
                Console.error(text)
            }
        }
    }
}

extension Result where Success == UpdateRequest {
    fileprivate var zone: ZoneInfo? { if case .success(let request) = self { request.timeZone } else { nil } }
}
