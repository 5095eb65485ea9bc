import CivilTime
import MDMDiagnostics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An event in the CloudEvents 1.0 structured JSON form (`application/cloudevents+json`): the attributes and the
/// data in one JSON object, which is the body that is signed and sent.
public struct CloudEvent: Sendable, Equatable {
    /// The media type of the body.
    public static let contentType = "application/cloudevents+json"

    /// Unique per event; also the delivery's `webhook-id`, so a receiver can drop a duplicate.
    public var id: String
    /// `mdmconf://<server name>`.
    public var source: String
    /// What happened.
    public var type: EventType
    /// When it happened.
    public var time: Instant
    /// What it is about: a device id, or a generation number.
    public var subject: String
    /// The event's data (`datacontenttype: application/json`).
    public var data: JSONValue

    /// An event.
    public init(id: String, source: String, type: EventType, time: Instant, subject: String, data: JSONValue) {
        (self.id, self.source, self.type, self.time, self.subject, self.data) = (id, source, type, time, subject, data)
    }

    /// An event with a new random id (`evt_` and 24 hex digits).
    public init(source: String, type: EventType, time: Instant, subject: String, data: JSONValue) {
        self.init(id: Self.newID(), source: source, type: type, time: time, subject: subject, data: data)
    }

    /// `mdmconf://` and the server's name.
    public static func source(server: String) -> String { "mdmconf://" + server }

    /// A new event id: `evt_` and 24 hex digits (96 bits): random bits drawn once per process, and a counter mixed
    /// into them, so no id repeats.
    public static func newID() -> String { EventIDs.shared.next() }

    /// The envelope as JSON.
    public var json: JSONValue {
        var tree = JSONTree()
        write(to: &tree) { $0.value(data) }
        return tree.document
    }

    /// The body as sent: compact JSON.
    public var body: String { body { $0.value(data) } }

    /// The body as sent, its `data` written into it by `writeData` instead of `data` (a document written straight
    /// as text, never made as a value: an event for every check-in).
    public func body(data writeData: (inout JSONText) -> Void) -> String {
        var text = JSONText(pretty: false)
        write(to: &text, data: writeData)
        return String(decoding: text.bytes, as: UTF8.self)
    }

    /// The envelope, member by member, `writeData` writing the value of `data`.
    private func write<Sink: JSONSink>(to sink: inout Sink, data writeData: (inout Sink) -> Void) {
        sink.beginObject()
        sink.member("specversion", .string("1.0"))
        sink.member("id", .string(id))
        sink.member("source", .string(source))
        sink.member("type", .string(type.rawValue))
        sink.member("time", .string(time.description))
        sink.member("subject", .string(subject))
        sink.member("datacontenttype", .string("application/json"))
        sink.key(literal: "data")
        writeData(&sink)
        sink.endObject()
    }
}

/// Event ids: 96 bits drawn from the system's random generator once per process, then a counter mixed into the
/// low 64 by a bijection (SplitMix64's finalizer), so no two ids of a process are alike and ids of two processes
/// differ unless their 96 random bits meet. Drawing 96 random bits for every id had cost two `getrandom` system
/// calls an event (about 4,300 instructions of a check-in that makes one, besides the kernel's share). An id is
/// unique, not secret: receivers use it to drop a duplicate delivery.
final class EventIDs: @unchecked Sendable {
    static let shared = EventIDs()

    private let high: UInt32
    private let low: UInt64
    private var counter: UInt64 = 0
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        return mutex
    }()

    init() {
        var generator = SystemRandomNumberGenerator()
        high = generator.next()
        low = generator.next()
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// The next id: `evt_` and 24 lower-case hex digits.
    func next() -> String {
        pthread_mutex_lock(mutex)
        counter &+= 1
        let count = counter
        pthread_mutex_unlock(mutex)
        let bits = low ^ Self.mix(count)
        return String(unsafeUninitializedCapacity: 28) { text in
            for (index, byte) in "evt_".utf8.enumerated() { text[index] = byte }
            Self.writeHex(UInt64(high), digits: 8, into: text, at: 4)
            Self.writeHex(bits, digits: 16, into: text, at: 12)
            return 28
        }
    }

    /// SplitMix64's finalizer: a bijection of 64-bit values, so distinct counts give distinct bits.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    private static func writeHex(
        _ value: UInt64, digits: Int, into text: UnsafeMutableBufferPointer<UInt8>, at start: Int
    ) {
        let alphabet: StaticString = "0123456789abcdef"
        for index in 0..<digits {
            let nibble = Int((value >> (UInt64(digits - 1 - index) * 4)) & 0xf)
            text[start + index] = alphabet.utf8Start[nibble]
        }
    }
}
