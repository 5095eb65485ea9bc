import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `mdmconf serve` as a separate process, as an admin runs it: started on a free port, its log read as it comes
/// (so a busy server never blocks on a full pipe), stopped by a signal.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var logText = ""
    private(set) var port = 0

    /// Starts `mdmconf ARGUMENTS` (`serve … --port 0`), with `environment` added to the tests' own, and waits until
    /// it says where it listens.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = CLIProcess.binary
        process.arguments = arguments
        process.currentDirectoryURL = CLIProcess.packageRoot
        process.environment = CLIProcess.environment.merging(environment) { $1 }
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        PipeReader.drain(err) { [weak self] data in
            self?.lock.withLock { self?.logText += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            if let port = Self.port(in: log) {
                self.port = port
                return
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        process.terminate()
        throw ServerProcessError(message: "mdmconf serve did not start: \(log)")
    }

    var log: String { lock.withLock { logText } }

    /// The port of `address=[IPv4]127.0.0.1/127.0.0.1:PORT` in the start-up line.
    private static func port(in log: String) -> Int? {
        guard let line = log.split(separator: "\n").first(where: { $0.contains("serving ") }),
            let address = line.split(separator: " ").first(where: { $0.hasPrefix("address=") }),
            let colon = address.lastIndex(of: ":")
        else { return nil }
        return Int(address[address.index(after: colon)...])
    }

    /// SIGKILL: no graceful shutdown, no flush, as a crash or an OOM kill.
    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM and wait; the exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

struct ServerProcessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Reads a child's output pipe to its end on a thread of its own, handing each chunk over as it comes, so a busy
/// child never blocks on a full pipe. A blocking read, not `FileHandle.readabilityHandler`: on Linux, tearing down
/// the dispatch read source that handler installs can race the descriptor's close, and it crashed libdispatch's
/// manager thread in the middle of a CI run (`_dispatch_event_loop_drain`, a bad pointer dereference). A blocking
/// read never registers the descriptor with libdispatch.
enum PipeReader {
    static func drain(_ pipe: Pipe, _ take: @escaping @Sendable (Data) -> Void) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread {
            // read(2) itself: it returns what the pipe holds as soon as it holds anything (FileHandle's reads wait
            // for a full buffer or the end).
            withExtendedLifetime(handle) {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = read(handle.fileDescriptor, &buffer, buffer.count)
                    if count > 0 {
                        take(Data(buffer[0..<count]))
                    } else if count < 0 && errno == EINTR {
                        continue
                    } else {
                        return
                    }
                }
            }
        }
    }
}
