import ArgumentParser

@main
struct MDMConfCommand: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "mdmconf",
        abstract: "Check managed app configurations, update policies and device policies before an MDM ships them.",
        discussion: """
            Exit codes: 0 success, 1 findings, 64 usage error, 66 unreadable input, 78 unusable schema.
            Set NO_COLOR to turn colour off.
            """,
        version: version,
        subcommands: [ValidateCommand.self, LintCommand.self, ConvertCommand.self, SchemaCommand.self]
    )
}
