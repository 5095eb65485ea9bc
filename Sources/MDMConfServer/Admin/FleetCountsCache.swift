import AdminUI
import CivilTime
import Fleet
import NIOConcurrencyHelpers

/// Fleet counts for the admin page, kept for a short while: counting 100,000 devices takes about a second, so a
/// page shows the last count (saying when it was made) and a stale one is recounted in the background. After a new
/// catalog generation the old count is shown (and said to be) until the recount is done. A large fleet with no
/// count yet is counted in the background while the page says so; a small one (up to `synchronousLimit` devices)
/// is counted at once.
final class FleetCountsCache: Sendable {
    private struct State {
        var generation = 0
        var counts: FleetCounts?
        var refreshing = false
    }

    private let state = NIOLockedValueBox(State())
    let freshFor: Double
    let synchronousLimit: Int

    init(freshFor: Double = 15, synchronousLimit: Int = 20_000) {
        self.freshFor = freshFor
        self.synchronousLimit = synchronousLimit
    }

    func counts(query: FleetQuery, generation: Int) async -> FleetCounts {
        let now = Instant.now
        let current = state.withLockedValue { $0 }
        if let counts = current.counts {
            let stale = current.generation != generation || Double(now.seconds - counts.countedAt.seconds) >= freshFor
            if stale { startRecount(query: query, generation: generation) }
            guard current.generation == generation else {
                var shown = counts
                shown.note =
                    "Counted for catalog generation \(current.generation); recounting for generation \(generation)."
                return shown
            }
            return counts
        }
        let devices = (try? await query.store.counts().devices) ?? 0
        if devices <= synchronousLimit { return await count(query: query, generation: generation) }
        startRecount(query: query, generation: generation)
        return FleetCounts(
            summary: nil, countedAt: now,
            problem: "Counting \(devices) devices in the background: reload this page in a few seconds.")
    }

    private func startRecount(query: FleetQuery, generation: Int) {
        let start = state.withLockedValue { current -> Bool in
            guard !current.refreshing else { return false }
            current.refreshing = true
            return true
        }
        if start { Task { await self.count(query: query, generation: generation) } }
    }

    @discardableResult
    private func count(query: FleetQuery, generation: Int) async -> FleetCounts {
        do {
            let counts = FleetCounts(summary: try await query.summary(FleetFilter()), countedAt: query.evaluator.now)
            state.withLockedValue { $0 = State(generation: generation, counts: counts, refreshing: false) }
            return counts
        } catch {
            // A failed count is not kept: the next page asks again.
            state.withLockedValue { $0.refreshing = false }
            let message = (error as? FleetStoreError)?.message ?? "\(error)"
            return FleetCounts(summary: nil, countedAt: .now, problem: "the fleet store cannot be read: \(message)")
        }
    }
}
