import CivilTime

/// Group commit for check-ins (*Fleet state*): check-ins that arrive while a batch is being written wait
/// and go together in the next one, one transaction each; `submit` returns only after the batch holding its
/// check-in has committed, and throws when that batch failed. After a failure, check-ins are refused at once for
/// `retryAfter` seconds (the 503's `Retry-After`) instead of piling up behind a store that is down; the next batch
/// after that tries the store again, so the server reconnects by itself.
///
/// Batches are written one at a time, so check-ins are stored in the order they came. (PostgreSQL took check-ins in
/// three such lanes side by side until its connections got event loops of their own: then one lane's larger
/// batches took 12,900-13,700 check-ins/s against 11,600-12,400 for two lanes and 9,800-10,900 for three, and
/// with commits 2 ms slower 7,200 against 7,400 and 7,700. Two lanes that split the check-ins by device, each with
/// a connection of its own, were tried again on 2026-11-29 and were no faster: 14,908 check-ins/s against 14,764
/// for one lane, the server and PostgreSQL each spending 9-16 µs more on a check-in in the smaller batches.)
///
/// The writer is the one serial part of taking check-ins, so nothing on its path waits for a thread to be scheduled
/// that it can do without: check-ins are queued under a lock (no hop to an actor); the first check-in to find the
/// writer idle sends a batch from its own thread, and each batch's completion, on the store's thread (the database
/// connection's event loop, SQLite's writing thread: `FleetStore.write(_:completion:)`), answers its check-ins and
/// sends the next batch from there. Before, a task wrote batch after batch, and each batch woke it on another
/// thread: the chain took 5-12 % more check-ins on PostgreSQL (six alternating pairs) and 2-10 % more on SQLite
/// (four). A write that takes longer than `writeTimeout` is abandoned: its check-ins and all that wait fail, and the
/// next check-in starts a new chain.
public final class CheckInWriter: Sendable {
    /// The store written to.
    public let store: any FleetStore
    /// The most check-ins committed in one transaction.
    public let maxBatch: Int
    /// Seconds to refuse check-ins after a failed write.
    public let retryAfter: Int
    /// A write that takes longer than this many seconds counts as failed.
    public let writeTimeout: Double
    /// The time, read for when a failure happened and until when check-ins are refused (tests move it).
    public let clock: @Sendable () -> Instant

    /// What a check-in's submitter is told once its batch has committed, or failed.
    public typealias Completion = @Sendable (Result<Void, FleetStoreError>) -> Void
    private typealias Entry = (record: CheckInRecord, done: Completion)
    private struct State {
        /// Check-ins waiting.
        var pending: [Entry] = []
        /// Whether the writing task runs; `generation` names the tasks, and that of a write that timed out finds a
        /// newer one.
        var writing = false
        var generation = 0
        var refusingUntil: Instant?
        var lastFailure: (at: Instant, message: String)?
        var batches = 0
        var written = 0
    }
    private let state: Locked<State>

    /// A writer in front of `store`: batches of at most `maxBatch`, refusing check-ins for `retryAfter` seconds
    /// (read from `clock`) after a failed write, a write failed after `writeTimeout` seconds.
    public init(
        store: any FleetStore, maxBatch: Int = 2_000, retryAfter: Int = 2, writeTimeout: Double = 10,
        clock: @escaping @Sendable () -> Instant = { .now }
    ) {
        (self.store, self.clock, self.maxBatch, self.retryAfter) = (store, clock, maxBatch, retryAfter)
        self.writeTimeout = writeTimeout
        state = Locked(State())
    }

    /// The last failure, cleared by the next successful write.
    public var lastFailure: (at: Instant, message: String)? { state.withLock { $0.lastFailure } }
    /// Batches written so far (tests and metrics).
    public var batches: Int { state.withLock { $0.batches } }
    /// Check-ins written so far.
    public var written: Int { state.withLock { $0.written } }

    /// Stores `record` durably, together with whatever else is waiting.
    public func submit(_ record: CheckInRecord) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            submit(record) { done.resume(with: $0.mapError { $0 }) }
        }
    }

    /// Stores `record` durably, then calls `done` (from the writing task, or at once when check-ins are being
    /// refused): for callers that are not tasks, such as a channel handler on its event loop.
    public func submit(_ record: CheckInRecord, then done: @escaping Completion) {
        enum Next { case wait, write(generation: Int), refuse(String) }
        let next = state.withLock { state -> Next in
            if let until = state.refusingUntil, clock() < until, let failure = state.lastFailure {
                return .refuse(failure.message)
            }
            state.pending.append((record, done))
            guard !state.writing else { return .wait }
            state.writing = true
            return .write(generation: state.generation)
        }
        switch next {
        case .wait: break
        case .write(let generation): drain(generation)
        case .refuse(let message): done(.failure(FleetStoreError(.unavailable, message)))
        }
    }

    /// Writes the next batch, if check-ins wait, and again when it is done: batch after batch from the store's own
    /// thread (`FleetStore.write(_:completion:)`), while check-ins wait. `generation` is this chain's, until a
    /// time-out replaces it.
    private func drain(_ generation: Int) {
        let batch = state.withLock { state -> [Entry]? in
            guard state.generation == generation else { return nil }
            guard !state.pending.isEmpty else {
                state.writing = false
                return nil
            }
            let count = min(maxBatch, state.pending.count)
            defer { state.pending.removeFirst(count) }
            return Array(state.pending.prefix(count))
        }
        guard let batch else { return }
        let timer = Task {
            try await Task.sleep(for: .milliseconds(Int(writeTimeout * 1000)))
            self.abandon(generation, batch, "the store did not answer within \(Int(writeTimeout)) s")
        }
        store.write(batch.map(\.record)) { outcome in
            timer.cancel()
            self.finish(batch, outcome, generation)
        }
    }

    /// Answers a batch's check-ins, then writes the next one.
    private func finish(_ batch: [Entry], _ outcome: Result<Void, any Error>, _ generation: Int) {
        enum Answer { case stored, failed(FleetStoreError, waiting: [Entry]), timedOut }
        let answer = state.withLock { state -> Answer in
            guard state.generation == generation else { return .timedOut }  // answered by `abandon`
            switch outcome {
            case .success:
                state.batches += 1
                state.written += batch.count
                state.lastFailure = nil
                state.refusingUntil = nil
                return .stored
            case .failure(let error):
                let message = (error as? FleetStoreError)?.message ?? "the store refused the write: \(error)"
                return .failed(FleetStoreError(.unavailable, message), waiting: fail(&state, message))
            }
        }
        switch answer {
        case .stored: for entry in batch { entry.done(.success(())) }
        case .failed(let failure, let waiting): for entry in batch + waiting { entry.done(.failure(failure)) }
        case .timedOut: return
        }
        drain(generation)
    }

    /// A write that has not answered in time: its check-ins and those waiting fail, and the writing task is
    /// replaced (the next check-in starts one), whatever the stuck write does later.
    private func abandon(_ generation: Int, _ batch: [Entry], _ message: String) {
        let waiting = state.withLock { state -> [Entry]? in
            guard state.generation == generation else { return nil }
            let waiting = fail(&state, message)
            state.generation += 1
            state.writing = false
            return waiting
        }
        guard let waiting else { return }
        let failure = FleetStoreError(.unavailable, message)
        for entry in batch + waiting { entry.done(.failure(failure)) }
    }

    /// Records a failure, starts refusing, and takes the check-ins that were waiting (to fail them too: the store
    /// is down for all).
    private func fail(_ state: inout State, _ message: String) -> [Entry] {
        let now = clock()
        state.lastFailure = (now, message)
        state.refusingUntil = now.adding(seconds: Int64(retryAfter))
        defer { state.pending = [] }
        return state.pending
    }
}
