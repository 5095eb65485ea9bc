import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import NIOSSL
import SwiftASN1
import X509

/// Why a certificate and key cannot be served (`serve` exits 78 with it; a reload keeps the old pair).
public struct TLSProblem: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the file.
    public let message: String
    public var description: String { message }

    init(_ message: String) { self.message = message }
}

/// A certificate chain and its key, read and checked (*Serving a catalog*).
public struct TLSPair: Sendable {
    /// The PEM certificate chain, leaf first.
    public let certificatePath: String
    /// The PEM private key of the leaf.
    public let keyPath: String
    let chain: [NIOSSLCertificate]
    let key: NIOSSLPrivateKey
    /// The leaf certificate's names and validity, for the start-up line and the checks.
    public let subject: String
    /// The leaf's subject alternative names (DNS names and addresses).
    public let names: [String]
    /// The leaf's expiry.
    public let notValidAfter: Date

    /// Reads and checks a PEM certificate chain (leaf first) and a PEM private key: both readable, the key the
    /// leaf's, the leaf valid now.
    public static func load(certificate certificatePath: String, key keyPath: String, now: Date = Date())
        throws(TLSProblem) -> TLSPair
    {
        func text(_ path: String, _ what: String) throws(TLSProblem) -> String {
            guard FileManager.default.fileExists(atPath: path) else {
                throw TLSProblem("\(what) \(path) does not exist")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw TLSProblem("\(what) \(path) cannot be read (permissions?)")
            }
            guard data.count <= 1 << 20, let string = String(data: data, encoding: .utf8) else {
                throw TLSProblem("\(what) \(path) is not a PEM text file")
            }
            return string
        }
        let certificateText = try text(certificatePath, "--tls-cert")
        let keyText = try text(keyPath, "--tls-key")
        let leaf: Certificate
        let chain: [NIOSSLCertificate]
        do {
            let documents = try PEMDocument.parseMultiple(pemString: certificateText).filter {
                $0.discriminator == "CERTIFICATE"
            }
            guard let first = documents.first else {
                throw TLSProblem("--tls-cert \(certificatePath) holds no CERTIFICATE")
            }
            leaf = try Certificate(derEncoded: first.derBytes)
            chain = try documents.map { try NIOSSLCertificate(bytes: $0.derBytes, format: .der) }
        } catch let problem as TLSProblem {
            throw problem
        } catch {
            throw TLSProblem("--tls-cert \(certificatePath) is not a PEM certificate: \(error)")
        }
        let privateKey: Certificate.PrivateKey
        let key: NIOSSLPrivateKey
        do {
            privateKey = try Certificate.PrivateKey(pemEncoded: keyText)
            key = try NIOSSLPrivateKey(bytes: Array(keyText.utf8), format: .pem)
        } catch {
            throw TLSProblem("--tls-key \(keyPath) is not a PEM private key (RSA, P-256, P-384 or P-521): \(error)")
        }
        guard privateKey.publicKey == leaf.publicKey else {
            throw TLSProblem("--tls-key \(keyPath) is not the key of the certificate in \(certificatePath)")
        }
        guard leaf.notValidAfter > now else {
            throw TLSProblem("the certificate in \(certificatePath) expired at \(Self.format(leaf.notValidAfter))")
        }
        guard leaf.notValidBefore <= now.addingTimeInterval(300) else {
            throw TLSProblem(
                "the certificate in \(certificatePath) is not valid before \(Self.format(leaf.notValidBefore))")
        }
        var names: [String] = []
        if let alternatives = try? leaf.extensions.subjectAlternativeNames {
            for name in alternatives {
                switch name {
                case .dnsName(let dns): names.append(dns)
                case .ipAddress(let bytes): names.append(Self.ipText(Array(bytes.bytes)))
                default: continue
                }
            }
        }
        return TLSPair(
            certificatePath: certificatePath, keyPath: keyPath, chain: chain, key: key,
            subject: leaf.subject.description, names: names, notValidAfter: leaf.notValidAfter)
    }

    /// `date` as the start-up line and the problems write it: ISO 8601 in UTC (`2027-01-01T00:00:00Z`).
    public static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: date)
    }

    static func ipText(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        guard bytes.count == 16 else { return bytes.map { String($0, radix: 16) }.joined(separator: ":") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}

/// The TLS of `serve`: TLS 1.2 and later, HTTP/2 and HTTP/1.1 by ALPN, the certificate and key chosen per
/// connection from the current pair, so a SIGHUP that reads a good new pair takes effect for new connections
/// without a restart (a bad one is logged and the old pair stays).
public final class ServerTLS: Sendable {
    private let current: NIOLockedValueBox<TLSPair>

    /// Serves `pair` until a reload replaces it.
    public init(_ pair: TLSPair) { current = NIOLockedValueBox(pair) }

    /// The pair new connections get.
    public var pair: TLSPair { current.withLockedValue { $0 } }

    /// Reads the pair's files again; returns the problem when the new pair is refused (the old one stays).
    @discardableResult
    public func reload(logger: Logger) -> TLSProblem? {
        let old = pair
        do {
            let fresh = try TLSPair.load(certificate: old.certificatePath, key: old.keyPath)
            current.withLockedValue { $0 = fresh }
            logger.info(
                "TLS certificate reloaded",
                metadata: ["subject": "\(fresh.subject)", "notValidAfter": "\(TLSPair.format(fresh.notValidAfter))"])
            return nil
        } catch {
            logger.error("TLS certificate not reloaded, still serving the previous one: \(error.message)")
            return error
        }
    }

    /// The server configuration: the current pair at start-up, then per connection.
    public var configuration: TLSConfiguration {
        let start = pair
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: start.chain.map { .certificate($0) }, privateKey: .privateKey(start.key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = NIOHTTP2SupportedALPNProtocols
        let current = self.current
        configuration.sslContextCallback = { _, promise in
            let pair = current.withLockedValue { $0 }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = pair.chain.map { .certificate($0) }
            override.privateKey = .privateKey(pair.key)
            promise.succeed(override)
        }
        return configuration
    }
}
