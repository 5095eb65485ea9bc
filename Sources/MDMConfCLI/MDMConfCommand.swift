import ArgumentParser

@main
struct MDMConfCommand: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "mdmconf",
        abstract: "Check managed app configurations, update policies and device policies before an MDM ships them.",
        discussion: """
            Exit codes: 0 success / allow, 1 findings / deny, 3 indeterminate, 4 conditional, 10/20/30 update \
            recommended/required/unsupported, 64 usage error, 65 invalid request or query, 66 unreadable input, \
            78 invalid schema, policy, profile, catalog or store. Set NO_COLOR to turn colour off.
            `mdmconf --version` prints the version.
            """,
        subcommands: [
            ValidateCommand.self, LintCommand.self, UpdateCheckCommand.self, PolicyCommand.self, ConvertCommand.self,
            SchemaCommand.self, ServeCommand.self, ReportCommand.self, SimulateCommand.self, DiffCommand.self,
            PublishCommand.self, HistoryCommand.self, RollbackCommand.self,
        ]
    )

    /// `mdmconf --version` is answered before parsing: the parser's own version flag (and any root flag) would
    /// also claim `--version` after a subcommand, where `update-check --version` is the app's version.
    static func main() {
        if Array(CommandLine.arguments.dropFirst()) == ["--version"] {
            Console.out(version + "\n")
            return
        }
        main(nil)
    }
}
