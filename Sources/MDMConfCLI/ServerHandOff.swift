import ArgumentParser
import MDMConfCommandSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `serve` and the fleet commands live in the `mdmconf-server` executable, so that the file commands start from
/// a binary without the server, SwiftNIO, the database drivers and TLS (and without position-independent code,
/// which the server keeps). `mdmconf serve …` replaces itself with `mdmconf-server serve …` from its own folder.
enum ServerHandOff {
    static let executableName = "mdmconf-server"

    /// Execs `mdmconf-server` with `arguments` when they name one of its commands (also `help serve`); returns
    /// otherwise. Exits 66 with the reason when the executable cannot be started.
    static func execIfServerCommand(_ arguments: [String]) {
        guard let first = arguments.first else { return }
        let named = first == "help" ? arguments.dropFirst().first : first
        guard let named, ServerCommands.contains(named) else { return }
        let path = serverPath()
        let argv = [path] + arguments
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
        cArguments.append(nil)
        execv(path, cArguments)
        let reason = String(cString: strerror(errno))
        Console.error(
            "error: mdmconf \(named) runs in \(executableName), which cannot be started from \(path): \(reason). "
                + "Install the two executables side by side; in a checkout, `swift build` builds both.\n")
        exit(ExitStatus.unreadableInput.rawValue)
    }

    /// `mdmconf-server` in the folder of the running executable (symbolic links resolved).
    static func serverPath() -> String {
        let own = executablePath() ?? CommandLine.arguments[0]
        let folder = own.lastIndex(of: "/").map { String(own[..<$0]) } ?? "."
        return folder + "/" + executableName
    }

    private static func executablePath() -> String? {
        #if os(Linux)
            return resolved("/proc/self/exe")
        #elseif canImport(Darwin)
            var size = UInt32(4096)
            var buffer = [CChar](repeating: 0, count: Int(size))
            guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
            return resolved(String(cString: buffer))
        #else
            return nil
        #endif
    }

    private static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }
}

// `mdmconf --help` lists the server's commands with what they do; running one hands it over before parsing.
struct ServeEntry: ParsableCommand { static let configuration = ServerCommands.serve }
struct ReportEntry: ParsableCommand { static let configuration = ServerCommands.report }
struct SimulateEntry: ParsableCommand { static let configuration = ServerCommands.simulate }
struct DiffEntry: ParsableCommand { static let configuration = ServerCommands.diff }
struct PublishEntry: ParsableCommand { static let configuration = ServerCommands.publish }
struct HistoryEntry: ParsableCommand { static let configuration = ServerCommands.history }
struct RollbackEntry: ParsableCommand { static let configuration = ServerCommands.rollback }
struct RolloutEntry: ParsableCommand { static let configuration = ServerCommands.rollout }
struct EventsEntry: ParsableCommand { static let configuration = ServerCommands.events }
