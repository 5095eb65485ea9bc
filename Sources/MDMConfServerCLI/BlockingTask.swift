import Dispatch
import MDMConfCommandSupport

/// Runs an async command body from a synchronous `run()` (the root command is synchronous, so that the quick
/// commands start without a concurrency runtime hop) and hands its exit code to the blocked main thread.
enum BlockingTask {
    static func run(_ body: @escaping @Sendable () async throws -> Int32) throws -> Int32 {
        let outcome = Outcome()
        Task {
            do { outcome.code = try await body() } catch { outcome.error = error }
            outcome.done.signal()
        }
        outcome.done.wait()
        if let error = outcome.error { throw error }
        return outcome.code
    }

    private final class Outcome: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var code: Int32 = 0
        var error: (any Error)?
    }
}
