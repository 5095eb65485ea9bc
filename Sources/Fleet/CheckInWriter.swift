import CivilTime

/// Group commit for check-ins (fleet.md, Reliability): check-ins that arrive while a batch is being written wait
/// and go together in the next one, one transaction each; `submit` returns only after the batch holding its
/// check-in has committed, and throws when that batch failed. After a failure, check-ins are refused at once for
/// `retryAfter` seconds (the 503's `Retry-After`) instead of piling up behind a store that is down; the next batch
/// after that tries the store again, so the server reconnects by itself.
public actor CheckInWriter {
    public nonisolated let store: any FleetStore
    public nonisolated let maxBatch: Int
    /// Seconds to refuse check-ins after a failed write.
    public nonisolated let retryAfter: Int
    /// A write that takes longer than this many seconds counts as failed.
    public nonisolated let writeTimeout: Double

    private var pending: [(record: CheckInRecord, done: CheckedContinuation<Void, any Error>)] = []
    private var writing = false
    private var refusingUntil: Instant?
    /// The last failure, cleared by the next successful write.
    public private(set) var lastFailure: (at: Instant, message: String)?
    public private(set) var batches = 0
    public private(set) var written = 0

    public init(store: any FleetStore, maxBatch: Int = 2_000, retryAfter: Int = 2, writeTimeout: Double = 10) {
        self.store = store
        self.maxBatch = maxBatch
        self.retryAfter = retryAfter
        self.writeTimeout = writeTimeout
    }

    /// Stores `record` durably, together with whatever else is waiting.
    public func submit(_ record: CheckInRecord) async throws {
        if let until = refusingUntil, Instant.now < until, let failure = lastFailure {
            throw FleetStoreError(.unavailable, failure.message)
        }
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            pending.append((record, done))
            if !writing {
                writing = true
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while !pending.isEmpty {
            let count = min(maxBatch, pending.count)
            let batch = Array(pending.prefix(count))
            pending.removeFirst(count)
            do {
                try await write(batch.map(\.record))
                batches += 1
                written += batch.count
                lastFailure = nil
                refusingUntil = nil
                for entry in batch { entry.done.resume() }
            } catch {
                let message = (error as? FleetStoreError)?.message ?? "the store refused the write: \(error)"
                lastFailure = (Instant.now, message)
                refusingUntil = Instant.now.adding(seconds: Int64(retryAfter))
                let failure = FleetStoreError(.unavailable, message)
                for entry in batch { entry.done.resume(throwing: failure) }
                for entry in pending { entry.done.resume(throwing: failure) }
                pending.removeAll()
            }
        }
        writing = false
    }

    /// The store's write, or a failure when it takes longer than `writeTimeout`.
    private func write(_ batch: [CheckInRecord]) async throws {
        let store = self.store
        try await withTimeout(seconds: writeTimeout, "the store did not answer within \(Int(writeTimeout)) s") {
            try await store.write(batch)
        }
    }
}

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

/// A lock for async code: one holder at a time, waiters in arrival order. Drivers use it to keep one
/// connection's transactions apart.
public actor AsyncLock {
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init() {}

    public func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        if !held {
            held = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            held = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
