import Testing

@testable import MDMConfServer

/// How the event dispatcher tells that check-ins are queueing for the store, so that it gives way to them.
struct EventDispatcherTests {
    /// The writer's counters at successive looks (check-ins written, batches committed), and the mean batch each
    /// look reports: one check-in a commit is a store keeping up, tens a commit are check-ins queueing.
    static let looks: [(written: Int, batches: Int, mean: Double)] = [
        (0, 0, 0),  // nothing committed yet
        (5, 5, 1),  // light load: a commit per check-in
        (5, 5, 0),  // nothing since the last look
        (325, 15, 32),  // 320 check-ins in 10 batches: queueing
        (333, 19, 2),
    ]

    @Test func meanBatchSinceTheLastLook() {
        var pressure = WriterPressure()
        for (index, look) in Self.looks.enumerated() {
            #expect(pressure.meanBatch(written: look.written, batches: look.batches) == look.mean, "look \(index)")
        }
    }

    /// What the dispatcher does at a look: whether check-ins queue, how long ago its last batch went out (nil:
    /// none has), and how many deliveries it sends now (nil: it gives way).
    static let paces: [(busy: Bool, sinceLastSent: Duration?, limit: Int?)] = [
        (false, nil, 256),  // idle store: full batches
        (false, .milliseconds(10), 256),  // draining after a storm: a full batch after each one
        (true, nil, 32),  // queueing, nothing sent yet: a small batch at once
        (true, .milliseconds(100), nil),  // queueing, a batch just went out: give way
        (true, .milliseconds(999), nil),
        (true, .seconds(1), 32),  // a second later: the next small batch
        (true, .seconds(30), 32),
    ]

    @Test func smallBatchesOnceASecondWhileCheckInsQueue() {
        let pace = DispatchPace()
        for (index, look) in Self.paces.enumerated() {
            #expect(pace.limit(busy: look.busy, sinceLastSent: look.sinceLastSent) == look.limit, "look \(index)")
        }
    }
}
