/// `body`'s result, or `FleetStoreError.unavailable` with `message` once `seconds` have passed, whichever comes
/// first. On time-out `body` is cancelled but not waited for: a driver that does not notice cancellation (a
/// connection pool waiting for a database that is gone) must not hold the caller, whose answer is then 503.
public func withTimeout<T: Sendable>(
    seconds: Double, _ message: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = TimeoutRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            let work = Task { await race.finish(with: await Result { try await body() }) }
            let timer = Task {
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                if !Task.isCancelled { await race.finish(with: .failure(FleetStoreError(.unavailable, message))) }
            }
            Task { await race.start(continuation, work: work, timer: timer) }
        }
    } onCancel: {
        Task { await race.finish(with: .failure(CancellationError())) }
    }
}

/// The first of a body and a timer to finish resumes the caller, once, and cancels the other.
private actor TimeoutRace<T: Sendable> {
    private var continuation: CheckedContinuation<T, any Error>?
    private var outcome: Result<T, any Error>?
    private var tasks: [Task<Void, Never>] = []

    func start(_ continuation: CheckedContinuation<T, any Error>, work: Task<Void, Never>, timer: Task<Void, Never>) {
        tasks = [work, timer]
        if let outcome {
            settle(continuation, outcome)
        } else {
            self.continuation = continuation
        }
    }

    func finish(with result: Result<T, any Error>) {
        guard outcome == nil else { return }
        outcome = result
        if let continuation {
            self.continuation = nil
            settle(continuation, result)
        }
    }

    private func settle(_ continuation: CheckedContinuation<T, any Error>, _ result: Result<T, any Error>) {
        for task in tasks { task.cancel() }
        continuation.resume(with: result)
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
