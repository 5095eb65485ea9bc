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
