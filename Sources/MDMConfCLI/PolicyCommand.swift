import ArgumentParser
import CivilTime
import DevicePolicy
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics
import PropertyList

struct PolicyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Answer device-policy questions over configuration profiles: apps, kiosk, URLs, Wi-Fi, VPN.",
        discussion: """
            Profiles (--profile, repeatable; a folder adds its .mobileconfig and .plist files, and the .json \
            files that hold a declarative-management declaration) are merged as *Device policies* says, and each \
            answer lists the rules that decided it.

            Exit codes: 0 allow / ok, 1 deny, 3 indeterminate (kiosk conflict, restriction values that conflict), \
            4 conditional (decided at run time \
            by a filter plug-in, the auto filter or VPN on-demand rules), 64 usage error, 65 invalid query, \
            66 missing profile file, 78 invalid profile (without --skip-invalid).
            """,
        subcommands: [
            AppQuery.self, URLQuery.self, WiFiQuery.self, KioskQuery.self, VPNQuery.self, ASAMQuery.self,
            RestrictionQuery.self, PolicyLintCommand.self, PolicyTestCommand.self,
        ]
    )
}

/// The options every policy question takes.
struct PolicyQueryOptions: ParsableArguments {
    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A profile file or folder (repeatable, order kept); - reads standard input.", valueName: "path"))
    var profile: [String] = []

    @Option(name: .long, help: "The instant to evaluate at (RFC 3339 with Z or ±HH:MM); default: now.")
    var at: String?

    @Flag(name: .customLong("skip-invalid"), help: "Drop invalid profiles (as a device would) instead of exit 78.")
    var skipInvalid = false

    @Option(name: .long, help: "Output format: text or json.") var format: OutputFormat = .text

    @Flag(name: .long, help: "List every entry tested, matching or not.") var trace = false

    @OptionGroup var limits: ReaderLimitOptions

    func validate() throws {
        if profile.filter({ $0 == "-" }).count > 1 { throw ValidationError("--profile - can be given only once") }
    }

    /// Builds the query, answers it and prints it; exits with the answer's code.
    func answer(_ kind: PolicyQuery.Kind, argument: String? = nil, ssidHex: String? = nil, hidden: Bool = false) throws
    {
        var instant = Instant.now
        var query = PolicyQuery(
            kind: kind, argument: argument, ssidHex: ssidHex, hidden: hidden, at: instant, trace: trace)
        if let at {
            guard let parsed = PolicyQuery.instant(rfc3339: at) else {
                let diagnostic = Diagnostic(
                    DevicePolicyCode.invalidQueryTime, severity: .error,
                    message: "--at '\(at)' is not an RFC 3339 date-time with Z or ±HH:MM",
                    hint: "for example 2025-03-10T09:00:00Z")
                print(.refused(query, diagnostic, exit: 65))
                throw ExitCode(65)
            }
            instant = parsed
            query.at = instant
        }
        let answer = ProfileInputs.answer(
            query, profiles: profile, skipInvalid: skipInvalid, options: limits.readerOptions)
        print(answer)
        if answer.exitCode != 0 { throw ExitCode(answer.exitCode) }
    }

    private func print(_ answer: PolicyAnswer) {
        switch format {
        case .json: Console.out(answer.json.serialized())
        case .text:
            Console.out(answer.text)
            // Errors and warnings in full; info lints are counted (`mdmconf policy lint` lists them).
            let infos = answer.lints.filter { $0.diagnostic.severity == .info }.count
            PolicyText.printFindings(answer.lints.filter { $0.diagnostic.severity != .info } + answer.diagnostics)
            if infos > 0 {
                Console.error("\(infos) info lint\(infos == 1 ? "" : "s") (mdmconf policy lint lists them)\n")
            }
        }
    }
}

struct AppQuery: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "app", abstract: "May this app be shown or launched?")
    @Argument(help: "The bundle id.") var bundleID: String
    @OptionGroup var options: PolicyQueryOptions
    func run() throws { try options.answer(.app, argument: bundleID) }
}

struct URLQuery: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "url", abstract: "May this http(s) URL load?")
    @Argument(help: "The URL.") var url: String
    @OptionGroup var options: PolicyQueryOptions
    func run() throws { try options.answer(.url, argument: url) }
}

struct WiFiQuery: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wifi", abstract: "May this Wi-Fi network be joined?",
        discussion: "Give the SSID as UTF-8 text, or its bytes with --ssid-hex (exactly one of the two).")
    @Argument(help: "The SSID as UTF-8 text.") var ssid: String?
    @Option(name: .customLong("ssid-hex"), help: "The SSID bytes in hex.") var ssidHex: String?
    @Flag(name: .long, help: "The network does not broadcast its SSID.") var hidden = false
    @OptionGroup var options: PolicyQueryOptions

    func validate() throws {
        if (ssid == nil) == (ssidHex == nil) { throw ValidationError("give exactly one of SSID and --ssid-hex") }
    }

    func run() throws { try options.answer(.wifi, argument: ssid, ssidHex: ssidHex, hidden: hidden) }
}

struct KioskQuery: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk", abstract: "Is the device locked to one app, with which options?")
    @OptionGroup var options: PolicyQueryOptions
    func run() throws { try options.answer(.kiosk) }
}

struct VPNQuery: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "vpn", abstract: "Is a VPN required?")
    @OptionGroup var options: PolicyQueryOptions
    func run() throws { try options.answer(.vpn) }
}

struct ASAMQuery: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "asam", abstract: "May this app enter single-app mode by itself (Autonomous Single App Mode)?")
    @Argument(help: "The bundle id.") var bundleID: String
    @OptionGroup var options: PolicyQueryOptions
    func run() throws { try options.answer(.asam, argument: bundleID) }
}

struct RestrictionQuery: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restriction", abstract: "The merged value of one restriction, and who set it.",
        discussion: """
            Besides the restrictions the engine evaluates itself, any key of Apple's restrictions payload \
            (allowCamera, ratingApps) and TYPE.KEY of a declaration type \
            (com.apple.configuration.passcode.settings.MinimumLength) are answered when a checkout of \
            apple/device-management is on MDMCONF_SCHEMA_PATH: by Apple's most-restrictive rule, or by the key's \
            combinetype. The answer names the rule.
            """)
    @Argument(
        help:
            "The restriction key: allowSafari, blockedAppBundleIDs, any key of Apple's restrictions payload, or TYPE.KEY."
    ) var key: String
    @OptionGroup var options: PolicyQueryOptions
    func run() throws { try options.answer(.restriction, argument: key) }
}
