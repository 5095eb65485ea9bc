import Foundation
import MDMConfClientCore

/// How a simulation runs.
public struct SimulationOptions: Sendable {
    public var server: URL
    /// An admin token (the simulator names each device), or nil for a development server.
    public var token: String?
    /// Seconds to keep launching; 0 launches every app of every device twice (the first launch fetches the
    /// configuration, the second reports it applied, as an app relaunched later does).
    public var duration: Double
    /// Launches per second across the fleet; nil for as fast as the server answers.
    public var rate: Double?
    /// Every how many launches a device also refreshes the configuration as an app coming to the foreground
    /// does (a conditional GET); 0 never.
    public var refreshEvery: Int
    /// The client's time limit per launch.
    public var timeout: Double
    /// Where the devices keep their caches (one folder per device).
    public var cacheRoot: URL

    public init(
        server: URL, token: String?, duration: Double = 0, rate: Double? = nil, refreshEvery: Int = 2,
        timeout: Double = 5,
        cacheRoot: URL
    ) {
        (self.server, self.token, self.duration, self.rate) = (server, token, duration, rate)
        (self.refreshEvery, self.timeout, self.cacheRoot) = (refreshEvery, timeout, cacheRoot)
    }
}

/// Plays a fleet against a server with ``MDMConfClient``: every device runs its apps' launch sequences (check in,
/// fetch the configuration when stale, obey the decision), each with its own cache, concurrently.
public struct Simulator: Sendable {
    public var options: SimulationOptions

    public init(options: SimulationOptions) { self.options = options }

    /// Runs the plans and returns what was seen; `progress` is called about twice a second while it runs.
    public func run(_ plans: [DevicePlan], progress: (@Sendable (SimulationStats.Snapshot) -> Void)? = nil) async
        -> SimulationSummary
    {
        let stats = SimulationStats()
        // One pool for the fleet: as many connections as devices play at once, up to 256.
        let sessions = 1
        let transports = [HTTPClientTransport(maxConnectionsPerHost: max(8, min(plans.count, 256)))]
        let pacer = options.rate.map { Pacer(perSecond: $0) }
        let started = ContinuousClock.now
        let end = started.advanced(by: .milliseconds(Int64(options.duration * 1000)))
        let ticker = progress.map { report in
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(500))
                    report(stats.snapshot(since: started))
                }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for (index, plan) in plans.enumerated() {
                let transport = transports[index % sessions]
                group.addTask {
                    await play(plan, transport: transport, stats: stats, pacer: pacer, until: end)
                }
            }
        }
        ticker?.cancel()
        let elapsed = started.duration(to: .now)
        for transport in transports { await transport.shutdown() }
        return stats.summary(elapsed: elapsed, devices: plans)
    }

    private func play(
        _ plan: DevicePlan, transport: HTTPClientTransport, stats: SimulationStats, pacer: Pacer?,
        until end: ContinuousClock.Instant
    ) async {
        let cache = options.cacheRoot.appendingPathComponent(plan.device)
        let clients = plan.apps.map { app in
            (
                app,
                MDMConfClient(
                    server: options.server, token: options.token, app: app.app, cache: cache, device: plan.device,
                    timeout: options.timeout, transport: transport)
            )
        }
        var launches = 0
        var rounds = 0
        repeat {
            rounds += 1
            for (app, client) in clients {
                await pacer?.next()
                let before = ContinuousClock.now
                let result = await client.launch(
                    version: app.version, platform: plan.platform, osVersion: plan.osVersion,
                    deviceModel: plan.deviceModel, locale: plan.locale, timeZone: plan.timeZone)
                stats.launched(plan.device, app, result, took: before.duration(to: .now))
                launches += 1
                if options.refreshEvery > 0, launches % options.refreshEvery == 0 {
                    await pacer?.next()
                    let refreshed = await client.refreshConfiguration()
                    stats.refreshed(notModified: refreshed.notModified, problem: refreshed.problem)
                }
                if Task.isCancelled { return }
            }
        } while options.duration > 0 ? ContinuousClock.now < end : rounds < 2
    }
}

/// Spaces requests evenly at a rate across every device.
actor Pacer {
    private let interval: Duration
    private var nextSlot = ContinuousClock.now

    init(perSecond rate: Double) {
        interval = .nanoseconds(Int64(1e9 / max(rate, 0.001)))
    }

    func next() async {
        let now = ContinuousClock.now
        let slot = max(now, nextSlot)
        nextSlot = slot.advanced(by: interval)
        if slot > now { try? await Task.sleep(until: slot, clock: .continuous) }
    }
}
