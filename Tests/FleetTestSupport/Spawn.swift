import Fleet
import Foundation
import TestScratch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a helper command (createdb, pg_ctl through `Tests/pg-cluster.sh`) to its end with `posix_spawn` and
/// `waitpid`. Its output goes to temporary files, not pipes: a daemon it starts (the PostgreSQL server) keeps
/// inherited descriptors open for its whole life, and Foundation's `Process` was seen to miss a helper's exit when
/// many processes run at once.
public enum Spawn {
    /// The command's standard output; throws with its standard error when it exits with a non-zero status.
    @discardableResult
    public static func run(_ arguments: [String]) throws -> String {
        let folder = Scratch.url("mdmconf-spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("out").path
        let errPath = folder.appendingPathComponent("err").path

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw FleetStoreError(.unusable, "\(arguments[0]) could not be started (errno \(spawned))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let errors = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            throw FleetStoreError(.unusable, "\(arguments.joined(separator: " ")) failed (status \(status)): \(errors)")
        }
        return output
    }

    /// Starts `path ARGUMENTS` with its output discarded and returns its process id, for a test that signals it;
    /// reap it with ``wait(_:)``. `environment` is added to this process's.
    public static func start(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> pid_t
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in 0...2 {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment { variables[name] = value }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw FleetStoreError(.unusable, "\(path) could not be started (errno \(spawned))")
        }
        return pid
    }

    /// The exit status of a process started by ``start(_:_:environment:)`` if it has ended (and is now reaped),
    /// nil while it runs.
    public static func ended(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid ? status : nil
    }

    /// Waits for a process started by ``start(_:_:)``; its raw wait status.
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }
}
