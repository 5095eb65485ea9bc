import MDMDiagnostics

/// The answer to a check-in (`POST /v1/checkin`, and a DDM status report): for each app the device reported,
/// whether the configuration it holds is the one it is served now, and what it must do about updates.
///
/// One definition for both sides: the server builds it and writes ``json`` (its own writer, the members in this
/// order); an app decodes it with `JSONDecoder` (`MDMConfClient` does).
public struct CheckInAnswer: Codable, Sendable, Equatable {
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

        /// The app's part as the server writes it.
        public var json: JSONValue {
            .object([
                (CodingKeys.app.stringValue, .string(app)), (CodingKeys.config.stringValue, config.json),
                (CodingKeys.update.stringValue, update ?? .null),
            ])
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

        /// The standing as the server writes it.
        public var json: JSONValue {
            .object([
                (CodingKeys.status.stringValue, .string(status.rawValue)),
                (CodingKeys.etag.stringValue, .optional(etag)),
            ])
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

    /// The answer as the server writes it, members in the order above.
    public var json: JSONValue {
        .object([
            (CodingKeys.device.stringValue, .string(device)),
            (CodingKeys.receivedAt.stringValue, .string(receivedAt)),
            (CodingKeys.catalogGeneration.stringValue, .integer(catalogGeneration)),
            (CodingKeys.apps.stringValue, .array(apps.map(\.json))),
        ])
    }

    /// The part of the answer about `app`, when the answer has one.
    public func app(_ app: String) -> App? { apps.first { $0.app == app } }
}
