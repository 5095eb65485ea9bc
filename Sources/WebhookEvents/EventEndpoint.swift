/// One receiver of events, as `events.plist` declares it: where to send, which events, and where its signing
/// secret is kept (never in the catalog itself, which is published into the store in clear).
public struct EventEndpoint: Sendable, Equatable {
    /// Where the endpoint's secret is read from when an event is signed.
    public enum SecretSource: Sendable, Equatable, CustomStringConvertible {
        /// A file holding the secret (absolute path); surrounding whitespace is ignored.
        case file(String)
        /// An environment variable of the server's process.
        case environment(String)

        public var description: String {
            switch self {
            case .file(let path): "file \(path)"
            case .environment(let name): "environment variable \(name)"
            }
        }
    }

    /// The endpoint's name (its key in `events.plist`), which deliveries and commands name it by.
    public var name: String
    /// The URL events are POSTed to (`http` or `https`).
    public var url: String
    /// The events it receives.
    public var types: Set<EventType>
    /// Where its secret is read from.
    public var secret: SecretSource

    /// An endpoint.
    public init(name: String, url: String, types: Set<EventType>, secret: SecretSource) {
        (self.name, self.url, self.types, self.secret) = (name, url, types, secret)
    }

    /// Whether it receives events of `type` (every endpoint receives the `test` event sent to it).
    public func receives(_ type: EventType) -> Bool { type == .test || types.contains(type) }

    /// The signer of the secret as it is now (read again each time, so a rotated secret is picked up), or why
    /// there is none: the secret is missing, empty, or not `whsec_` and base64.
    public func signer(environment: [String: String]) -> Result<WebhookSignature, SecretError> {
        readSecret(environment: environment).flatMap { secret in
            do throws(SecretFormatError) {
                return .success(try WebhookSignature(secrets: secret))
            } catch {
                return .failure(
                    SecretError(
                        endpoint: name, message: "the secret of endpoint '\(name)' (\(self.secret)) is unusable: \(error.message)"))
            }
        }
    }

    /// The secret's current text, read now, or why it cannot be read.
    func readSecret(environment: [String: String]) -> Result<String, SecretError> {
        let text: String?
        switch secret {
        case .environment(let name): text = environment[name]
        case .file(let path): text = SecretFile.read(path)
        }
        guard let text, !text.trimmingASCIIWhitespace.isEmpty else {
            return .failure(
                SecretError(endpoint: name, message: "the secret of endpoint '\(name)' (\(secret)) is missing or empty")
            )
        }
        return .success(text.trimmingASCIIWhitespace)
    }
}

/// An endpoint's secret that cannot be read or used.
public struct SecretError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The endpoint's name.
    public let endpoint: String
    /// What is wrong.
    public let message: String

    public var description: String { message }
}

/// Reading a secret file without Foundation.
enum SecretFile {
    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
            if bytes.count > 65_536 { return nil }  // no secret is that long
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    /// The text without leading and trailing spaces, tabs and line breaks.
    var trimmingASCIIWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
