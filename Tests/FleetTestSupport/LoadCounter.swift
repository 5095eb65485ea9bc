import Foundation

/// A count shared between a load task and the test driving it, and a flag that ends the load: the test waits
/// for the load to make progress (so many more answers) instead of sleeping for a time and hoping.
public final class LoadCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var done = false

    public init() {}

    public var value: Int { lock.withLock { count } }
    public var stopped: Bool { lock.withLock { done } }
    public func add() { lock.withLock { count += 1 } }
    public func stop() { lock.withLock { done = true } }
}

/// Waits until `condition` holds, looking every millisecond, and gives up after `limit` seconds: true when it
/// held. For a test that waits on what the code does (answers counted, a port closed), so a condition that never
/// comes fails the test instead of hanging the suite.
public func eventually(within limit: Double = 60, _ condition: () throws -> Bool) async throws -> Bool {
    let end = ContinuousClock.now.advanced(by: .milliseconds(Int64(limit * 1000)))
    while try !condition() {
        guard ContinuousClock.now < end else { return false }
        try await Task.sleep(for: .milliseconds(1))
    }
    return true
}
