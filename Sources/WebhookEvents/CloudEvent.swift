import CivilTime
import MDMDiagnostics

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

    /// A new event id: `evt_` and 96 random bits in hex.
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt32
        return "evt_" + hex(high, digits: 16) + hex(UInt64(low), digits: 8)
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

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
