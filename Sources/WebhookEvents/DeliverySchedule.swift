/// When a failed delivery is tried again: exponential back-off from 5 seconds, doubling to at most an hour, each
/// wait drawn at random between half and all of it (jitter, so that endpoints coming back are not hit by every
/// event at once), until the event is 3 days old; then it is given up as failed.
public struct DeliverySchedule: Sendable, Equatable {
    /// The first wait, in seconds.
    public var firstDelay: Int64 = 5
    /// The longest wait, in seconds.
    public var maxDelay: Int64 = 3_600
    /// An event older than this many seconds is not tried again.
    public var giveUpAfter: Int64 = 3 * 86_400
    /// How long one attempt may take, in seconds.
    public var attemptTimeout: Int64 = 15

    /// The default schedule.
    public init() {}

    /// The wait after the `attempts`-th failed attempt (from 1), before jitter.
    public func baseDelay(afterAttempt attempts: Int) -> Int64 {
        let doublings = min(max(attempts - 1, 0), 20)
        return min(maxDelay, firstDelay << Int64(doublings))
    }

    /// The time of the next attempt after the `attempts`-th failure at `now` of an event created at `created`, or
    /// nil when the event is to be given up.
    public func nextAttempt<Generator: RandomNumberGenerator>(
        afterAttempt attempts: Int, at now: Int64, created: Int64, using generator: inout Generator
    ) -> Int64? {
        let base = baseDelay(afterAttempt: attempts)
        let wait = Int64.random(in: (base + 1) / 2...base, using: &generator)
        let next = now + wait
        return next - created > giveUpAfter ? nil : next
    }

    /// `nextAttempt` with the system's random numbers.
    public func nextAttempt(afterAttempt attempts: Int, at now: Int64, created: Int64) -> Int64? {
        var generator = SystemRandomNumberGenerator()
        return nextAttempt(afterAttempt: attempts, at: now, created: created, using: &generator)
    }
}
