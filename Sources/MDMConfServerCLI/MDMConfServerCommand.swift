import ArgumentParser
import MDMConfCommandSupport

/// The `mdmconf-server` executable: the commands of `mdmconf` that serve, store and play a fleet. `mdmconf serve …`
/// runs `mdmconf-server serve …`, so usage and errors name `mdmconf`.
@main
struct MDMConfServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mdmconf",
        abstract: "Serve catalogs, keep the fleet store and play fleets (the server side of mdmconf).",
        discussion: """
            mdmconf runs these commands here; the file commands (validate, lint, update-check, policy, convert, \
            schema) are in mdmconf.
            """,
        subcommands: [
            ServeCommand.self, ReportCommand.self, SimulateCommand.self, DiffCommand.self, PublishCommand.self,
            HistoryCommand.self, RollbackCommand.self, RolloutCommand.self, EventsCommand.self,
        ]
    )

    static func main() {
        if Array(CommandLine.arguments.dropFirst()) == ["--version"] {
            Console.out(mdmconfVersion + "\n")
            return
        }
        main(nil)
    }
}
