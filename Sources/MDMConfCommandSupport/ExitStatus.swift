import ArgumentParser

/// The exit codes of `mdmconf`, exactly as *Commands and exit codes* lists them. Never change a number.
package enum ExitStatus: Int32 {
    case success = 0
    case findings = 1
    case indeterminate = 3
    case conditional = 4
    case updateRecommended = 10
    case updateRequired = 20
    case unsupported = 30
    case usage = 64
    case invalidRequest = 65
    case unreadableInput = 66
    case invalidConfiguration = 78

    package var exitCode: ExitCode { ExitCode(rawValue) }
}
