import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where tests write their temporary files and folders: one folder per test process in the system's temporary
/// folder, removed when the process exits, so that a run of the suite leaves nothing behind. A folder left by a run
/// that crashed is removed by the next run once its process is gone.
public enum Scratch {
    private static let prefix = "mdmconf-test-"

    /// This process's folder, made on first use.
    public static let root: URL = {
        let system = FileManager.default.temporaryDirectory
        removeAbandoned(in: system)
        let root = system.appendingPathComponent("\(prefix)\(getpid())", isDirectory: true)
        try? FileManager.default.removeItem(at: root)
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            fatalError("the tests' temporary folder \(root.path) cannot be made: \(error)")
        }
        atexit { try? FileManager.default.removeItem(at: Scratch.root) }
        return root
    }()

    /// A new path named `name` in this process's folder (nothing is made there).
    public static func url(_ name: String) -> URL { root.appendingPathComponent(name) }

    /// Removes the folders of earlier runs whose process is no longer running.
    private static func removeAbandoned(in system: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: system.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(at: system.appendingPathComponent(name))
            }
        }
    }
}
