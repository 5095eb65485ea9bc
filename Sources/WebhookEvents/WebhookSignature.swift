import Crypto
import Foundation

/// The Standard Webhooks signature of an event: `webhook-signature` holds `v1,` and the base64 HMAC-SHA256 of
/// `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint's secret, once per secret while a secret is being
/// rotated (space-separated), so a receiver that knows either secret accepts the event.
public struct WebhookSignature: Sendable {
    /// The keys' bytes, in the order their signatures are written.
    let keyBytes: [[UInt8]]
    var keys: [SymmetricKey] { keyBytes.map { SymmetricKey(data: $0) } }

    /// The signer of `secrets`: each `whsec_` followed by the key's base64 (the prefix may be left out). Several
    /// secrets, separated by spaces or line breaks, sign with each (a rotation).
    public init(secrets text: String) throws(SecretFormatError) {
        var keys: [[UInt8]] = []
        for secret in text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }) {
            let encoded = secret.hasPrefix("whsec_") ? secret.dropFirst(6) : secret[...]
            guard let bytes = Data(base64Encoded: String(encoded)), bytes.count >= 16, bytes.count <= 64 else {
                throw SecretFormatError(
                    message:
                        "a webhook secret is whsec_ followed by the base64 of 16 to 64 random bytes (for example: whsec_$(openssl rand -base64 32))"
                )
            }
            keys.append([UInt8](bytes))
        }
        guard !keys.isEmpty else { throw SecretFormatError(message: "the webhook secret is empty") }
        keyBytes = keys
    }

    /// The `webhook-signature` header of `body` sent as message `id` at Unix time `timestamp`.
    public func header(id: String, timestamp: Int64, body: [UInt8]) -> String {
        keys.map { "v1," + Self.signature(key: $0, id: id, timestamp: timestamp, body: body) }.joined(separator: " ")
    }

    /// The three headers of a delivery: `webhook-id`, `webhook-timestamp`, `webhook-signature`.
    public func headers(id: String, timestamp: Int64, body: [UInt8]) -> [(name: String, value: String)] {
        [
            ("webhook-id", id), ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", header(id: id, timestamp: timestamp, body: body)),
        ]
    }

    /// Whether a delivery's headers carry a valid signature of `body` by one of these keys, with a timestamp
    /// within `tolerance` seconds of `now` (a replayed old event is refused). The comparison is in constant time.
    public func verify(
        id: String?, timestamp: String?, signatures: String?, body: [UInt8], now: Int64, tolerance: Int64 = 300
    ) -> Result<Void, VerificationFailure> {
        guard let id, !id.isEmpty, let timestamp, let signatures else { return .failure(.missingHeaders) }
        guard let seconds = Int64(timestamp) else { return .failure(.badTimestamp) }
        guard abs(now - seconds) <= tolerance else { return .failure(.timestampOutOfTolerance) }
        let message = Self.signedContent(id: id, timestamp: seconds, body: body)
        for candidate in signatures.split(separator: " ") {
            guard candidate.hasPrefix("v1,"), let mac = Data(base64Encoded: String(candidate.dropFirst(3))) else {
                continue
            }
            for key in self.keys where HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: message, using: key)
            {
                return .success(())
            }
        }
        return .failure(.noMatchingSignature)
    }

    /// Why a delivery does not verify.
    public enum VerificationFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// `webhook-id`, `webhook-timestamp` or `webhook-signature` is missing.
        case missingHeaders
        /// `webhook-timestamp` is not Unix seconds.
        case badTimestamp
        /// The timestamp is too far from now (a replay, or a clock far off).
        case timestampOutOfTolerance
        /// No `v1` signature matches any key.
        case noMatchingSignature

        public var description: String {
            switch self {
            case .missingHeaders: "webhook-id, webhook-timestamp or webhook-signature is missing"
            case .badTimestamp: "webhook-timestamp is not Unix seconds"
            case .timestampOutOfTolerance: "webhook-timestamp is too far from now"
            case .noMatchingSignature: "no signature matches"
            }
        }
    }

    static func signedContent(id: String, timestamp: Int64, body: [UInt8]) -> [UInt8] {
        Array("\(id).\(timestamp).".utf8) + body
    }

    static func signature(key: SymmetricKey, id: String, timestamp: Int64, body: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: signedContent(id: id, timestamp: timestamp, body: body), using: key)
        return Data(mac).base64EncodedString()
    }
}

/// A webhook secret that is not `whsec_` and base64.
public struct SecretFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public let message: String
    public var description: String { message }
}
