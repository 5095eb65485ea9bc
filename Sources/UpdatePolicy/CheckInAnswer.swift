import MDMDiagnostics

/// The answer to a check-in (`POST /v1/checkin`, and a DDM status report): for each app the device reported,
/// whether the configuration it holds is the one it is served now, and what it must do about updates.
///
/// One definition for both sides: the server writes the document (``Decided``, the same members in the same order
/// as ``json``); an app decodes it with `JSONDecoder` (`MDMConfClient` does).
public struct CheckInAnswer: Codable, Sendable, Equatable, JSONDocument {
    /// One app's part of the answer.
    public struct App: Codable, Sendable, Equatable {
        /// The app's bundle id.
        public var app: String
        /// Where its configuration stands.
        public var config: Config
        /// The update decision document (as `POST /v1/update-check` answers it); nil (`null`) when the catalog
        /// does not serve the app.
        public var update: JSONValue?

        /// An app's part.
        public init(app: String, config: Config, update: JSONValue?) {
            self.app = app
            self.config = config
            self.update = update
        }

        enum CodingKeys: String, CodingKey { case app, config, update }

        /// Writes every member, `null` where absent.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(app, forKey: .app)
            try container.encode(config, forKey: .config)
            try container.encode(update, forKey: .update)
        }

    }

    /// Where an app's configuration stands for the device.
    public struct Config: Codable, Sendable, Equatable {
        /// `current`: the device holds what it is served now; `stale`: it should fetch
        /// `/v1/apps/{app}/config` again; `none`: the catalog serves nothing for the app.
        public enum Status: String, Codable, Sendable, CaseIterable {
            /// The device holds the configuration it is served now.
            case current
            /// The device should fetch its configuration again.
            case stale
            /// The catalog serves no configuration for the app.
            case none
        }

        /// Where it stands.
        public var status: Status
        /// The ETag of the configuration the device is served now, in the form it reads; nil (`null`) for
        /// `none`.
        public var etag: String?

        /// A configuration's standing.
        public init(status: Status, etag: String?) {
            self.status = status
            self.etag = etag
        }

        enum CodingKeys: String, CodingKey { case status, etag }

        /// Writes both members, `null` where absent.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(status, forKey: .status)
            try container.encode(etag, forKey: .etag)
        }

    }

    /// The device that checked in.
    public var device: String
    /// When the server took the check-in (RFC 3339).
    public var receivedAt: String
    /// The catalog generation that answered.
    public var catalogGeneration: Int
    /// The apps, in the check-in's order.
    public var apps: [App]

    /// An answer.
    public init(device: String, receivedAt: String, catalogGeneration: Int, apps: [App]) {
        (self.device, self.receivedAt, self.catalogGeneration) = (device, receivedAt, catalogGeneration)
        self.apps = apps
    }

    enum CodingKeys: String, CodingKey { case device, receivedAt, catalogGeneration, apps }

    /// The answer as the server writes it (``json``, ``jsonText(pretty:)``), members in the order above.
    public func write(to sink: inout some JSONSink) {
        Self.write(
            device: device, receivedAt: receivedAt, catalogGeneration: catalogGeneration, apps: apps.count,
            app: { (apps[$0].app, apps[$0].config) }, to: &sink
        ) { index, sink in sink.value(apps[index].update ?? .null) }
    }

    /// The one description of the document: its members in order, for `count` apps, app `index` named and placed by
    /// `app(index)` and its `update` written by `update` (the index, the sink). The apps are taken by index: over a
    /// collection of them this generic code, not specialized, walked the collection through its witness tables
    /// (about 3,000 instructions an app, a fifth of writing a check-in's answer).
    static func write<Sink: JSONSink>(
        device: String, receivedAt: String, catalogGeneration: Int, apps count: Int,
        app: (Int) -> (app: String, config: Config), to sink: inout Sink, update: (Int, inout Sink) -> Void
    ) {
        sink.beginObject()
        sink.member("device", .string(device))
        sink.member("receivedAt", .string(receivedAt))
        sink.member("catalogGeneration", .integer(catalogGeneration))
        sink.key(literal: "apps")
        sink.beginArray()
        for index in 0..<count {
            let app = app(index)
            sink.beginObject()
            sink.member("app", .string(app.app))
            sink.key(literal: "config")
            sink.beginObject()
            sink.member("status", .string(app.config.status.rawValue))
            sink.member("etag", .optional(app.config.etag))
            sink.endObject()
            sink.key(literal: "update")
            update(index, &sink)
            sink.endObject()
        }
        sink.endArray()
        sink.endObject()
    }

    /// The answer as the server makes it: each app's ``Decision`` itself, written straight into the document's text
    /// (``jsonText(pretty:)``) instead of made into a value first (building and writing the value was a sixth of a
    /// check-in's instructions). ``answer`` is the same document as a ``CheckInAnswer``.
    public struct Decided: Sendable, JSONDocument {
        /// One app's part: its standing and its decision (nil when the catalog does not serve it).
        public struct App: Sendable {
            /// The app's bundle id.
            public var app: String
            /// Where its configuration stands.
            public var config: Config
            /// The update decision; nil when the catalog does not serve the app.
            public var decision: Decision?

            /// An app's part.
            public init(app: String, config: Config, decision: Decision?) {
                (self.app, self.config, self.decision) = (app, config, decision)
            }
        }

        /// The device that checked in.
        public var device: String
        /// When the server took the check-in (RFC 3339).
        public var receivedAt: String
        /// The catalog generation that answered.
        public var catalogGeneration: Int
        /// The apps, in the check-in's order.
        public var apps: [App]

        /// An answer.
        public init(device: String, receivedAt: String, catalogGeneration: Int, apps: [App]) {
            (self.device, self.receivedAt, self.catalogGeneration) = (device, receivedAt, catalogGeneration)
            self.apps = apps
        }

        /// The same answer, with each decision as its document.
        public var answer: CheckInAnswer {
            CheckInAnswer(
                device: device, receivedAt: receivedAt, catalogGeneration: catalogGeneration,
                apps: apps.map { CheckInAnswer.App(app: $0.app, config: $0.config, update: $0.decision?.json) })
        }

        /// The answer's document, each decision written as its own document: the members of ``CheckInAnswer``'s.
        public func write(to sink: inout some JSONSink) {
            CheckInAnswer.write(
                device: device, receivedAt: receivedAt, catalogGeneration: catalogGeneration, apps: apps.count,
                app: { (apps[$0].app, apps[$0].config) }, to: &sink
            ) { index, sink in
                if let decision = apps[index].decision { decision.write(to: &sink) } else { sink.value(.null) }
            }
        }
    }

    /// The part of the answer about `app`, when the answer has one.
    public func app(_ app: String) -> App? { apps.first { $0.app == app } }
}
