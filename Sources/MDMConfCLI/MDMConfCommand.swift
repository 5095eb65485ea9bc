import ArgumentParser
import MDMConfCommandSupport

@main
struct MDMConfCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mdmconf",
        abstract: "Check managed app configurations, update policies and device policies before an MDM ships them.",
        discussion: """
            Exit codes: 0 success / allow, 1 findings / deny, 3 indeterminate, 4 conditional, 10/20/30 update \
            recommended/required/unsupported, 64 usage error, 65 invalid request or query, 66 unreadable input, \
            78 invalid schema, policy, profile, catalog or store. Set NO_COLOR to turn colour off.
            `mdmconf --version` prints the version. serve, report, simulate, diff, publish, history and rollback \
            run in the mdmconf-server executable installed beside mdmconf.
            """,
        subcommands: [
            ValidateCommand.self, LintCommand.self, UpdateCheckCommand.self, PolicyCommand.self, ConvertCommand.self,
            SchemaCommand.self, DDMCommand.self, ServeEntry.self, ReportEntry.self, SimulateEntry.self, DiffEntry.self,
            PublishEntry.self, HistoryEntry.self, RollbackEntry.self, RolloutEntry.self, EventsEntry.self,
        ]
    )

    /// `mdmconf --version` is answered before parsing: the parser's own version flag (and any root flag) would
    /// also claim `--version` after a subcommand, where `update-check --version` is the app's version. The
    /// server's commands go to `mdmconf-server`; plain `lint`, `validate` and `update-check` runs skip ArgumentParser.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments == ["--version"] {
            Console.out(mdmconfVersion + "\n")
            return
        }
        ServerHandOff.execIfServerCommand(arguments)
        QuickArguments.runIfPlain(arguments)
        main(nil)
    }
}
