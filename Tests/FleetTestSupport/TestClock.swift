import CivilTime
import Foundation

/// A clock a test moves by hand, handed to code that reads the time through a `clock` closure: what waited for
/// seconds to pass now advances at once, and nothing depends on how fast the machine is.
public final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Instant

    public init(_ start: Instant = .now) { current = start }

    public var now: Instant { lock.withLock { current } }

    public func advance(seconds: Int64) { lock.withLock { current = current.adding(seconds: seconds) } }

    /// The closure to hand over.
    public var read: @Sendable () -> Instant { { [self] in now } }
}
