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
}
