import CivilTime
import MDMDiagnostics
import Testing

@testable import WebhookEvents

struct WebhookSignatureTests {
    /// The example of the Standard Webhooks specification: its secret, message id, timestamp and payload sign to
    /// its signature.
    @Test func standardWebhooksExample() throws {
        let signer = try WebhookSignature(secrets: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let body = Array(#"{"test": 2432232314}"#.utf8)
        #expect(
            signer.header(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body)
                == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        #expect(
            signer.verify(
                id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: "1614265330",
                signatures: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", body: body, now: 1_614_265_400
            )
            .refusal == nil)
    }

    struct Tampering: CustomStringConvertible, Sendable {
        var description: String
        var id: String? = "msg_1"
        var timestamp: String? = "1000"
        var body = #"{"a":1}"#
        var now: Int64 = 1_000
        var expected: WebhookSignature.VerificationFailure
    }

    static let tamperings: [Tampering] = [
        Tampering(description: "a changed body", body: #"{"a":2}"#, expected: .noMatchingSignature),
        Tampering(description: "another id", id: "msg_2", expected: .noMatchingSignature),
        Tampering(description: "another timestamp", timestamp: "1001", expected: .noMatchingSignature),
        Tampering(description: "a replay an hour later", now: 4_600, expected: .timestampOutOfTolerance),
        Tampering(description: "a timestamp that is not a number", timestamp: "soon", expected: .badTimestamp),
        Tampering(description: "no id", id: nil, expected: .missingHeaders),
    ]

    @Test(arguments: tamperings)
    func tamperedDeliveriesDoNotVerify(_ tampering: Tampering) throws {
        let signer = try WebhookSignature(secrets: "whsec_" + "c2VjcmV0LXNlY3JldC1zZWNyZXQ=")
        let signature = signer.header(id: "msg_1", timestamp: 1_000, body: Array(#"{"a":1}"#.utf8))
        #expect(
            signer.verify(
                id: tampering.id, timestamp: tampering.timestamp, signatures: signature,
                body: Array(tampering.body.utf8), now: tampering.now
            ).refusal == tampering.expected)
    }

    /// While a secret rotates, every delivery carries one signature per secret, and a receiver that knows only
    /// one of them accepts it.
    @Test func rotationSignsWithEverySecret() throws {
        let old = "whsec_" + "b2xkLXNlY3JldC1vbGQtc2VjcmV0"
        let new = "whsec_" + "bmV3LXNlY3JldC1uZXctc2VjcmV0"
        let both = try WebhookSignature(secrets: old + " " + new)
        let body = Array("{}".utf8)
        let header = both.header(id: "evt_1", timestamp: 50, body: body)
        #expect(header.split(separator: " ").count == 2)
        #expect(header.split(separator: " ").allSatisfy { $0.hasPrefix("v1,") })
        for secret in [old, new] {
            let receiver = try WebhookSignature(secrets: secret)
            #expect(
                receiver.verify(id: "evt_1", timestamp: "50", signatures: header, body: body, now: 60).refusal == nil)
        }
        let stranger = try WebhookSignature(secrets: "whsec_" + "c3RyYW5nZXItc3RyYW5nZXItc3RyYW5nZXI=")
        #expect(
            stranger.verify(id: "evt_1", timestamp: "50", signatures: header, body: body, now: 60)
                .refusal == .noMatchingSignature)
    }

    @Test(arguments: ["", "whsec_", "whsec_not base64!", "whsec_c2hvcnQ="])
    func unusableSecretsAreRefused(_ secret: String) {
        #expect(throws: SecretFormatError.self) { try WebhookSignature(secrets: secret) }
    }

    /// The envelope has the CloudEvents 1.0 attributes in structured mode, and the id is the delivery's id.
    @Test func cloudEventEnvelope() {
        let event = CloudEvent(
            id: "evt_1", source: CloudEvent.source(server: "mdm-a"), type: .rolloutHalted,
            time: Instant(seconds: 1_800_000_000), subject: "7", data: .object([("generation", .integer(7))]))
        #expect(
            event.body
                == #"{"specversion":"1.0","id":"evt_1","source":"mdmconf://mdm-a","type":"io.mdmconf.rollout.halted","time":"2027-01-15T08:00:00Z","subject":"7","datacontenttype":"application/json","data":{"generation":7}}"#
        )
        // Ids from a counter mixed by a bijection under 96 random bits: each one new, each one hex.
        let ids = Set((0..<100_000).map { _ in CloudEvent.newID() })
        #expect(ids.count == 100_000)
        #expect(ids.allSatisfy { $0.hasPrefix("evt_") && $0.count == 28 })
        #expect(ids.allSatisfy { $0.dropFirst(4).allSatisfy { "0123456789abcdef".contains($0) } })
        // The random part is not the same in every id: the low 64 bits of two ids differ in about half their bits.
        let lows = ids.prefix(2).map { UInt64($0.suffix(16), radix: 16)! }
        #expect((lows[0] ^ lows[1]).nonzeroBitCount > 8)
    }
}

struct DeliveryScheduleTests {
    /// Waits double from 5 s to at most an hour, each drawn between half and all of it; an event is given up once
    /// the next attempt would come more than 3 days after it was made.
    @Test func backOffWithJitterForThreeDays() {
        let schedule = DeliverySchedule()
        #expect((1...4).map { schedule.baseDelay(afterAttempt: $0) } == [5, 10, 20, 40])
        #expect(schedule.baseDelay(afterAttempt: 30) == 3_600)
        var generator = SystemRandomNumberGenerator()
        for attempt in 1...20 {
            let next = schedule.nextAttempt(afterAttempt: attempt, at: 1_000, created: 1_000, using: &generator)
            let base = schedule.baseDelay(afterAttempt: attempt)
            #expect(next.map { $0 - 1_000 }.map { ((base + 1) / 2...base).contains($0) } == true)
        }
        #expect(schedule.nextAttempt(afterAttempt: 80, at: 3 * 86_400 - 10, created: 0, using: &generator) == nil)
        // Attempts over 3 days: a receiver down for a day still gets the event.
        var now: Int64 = 0
        var attempts = 0
        while let next = schedule.nextAttempt(afterAttempt: attempts + 1, at: now, created: 0, using: &generator) {
            now = next
            attempts += 1
        }
        #expect(now > 2 * 86_400 && now <= 3 * 86_400)
        #expect(attempts > 60)
    }
}

extension Result where Success == Void {
    /// Why it failed, or nil when it succeeded.
    var refusal: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
