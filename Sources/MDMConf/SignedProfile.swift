import Dispatch
import Foundation
import SwiftASN1
@_spi(CMS) import X509

/// A configuration profile signed as MDMs and Apple Configurator sign them: CMS `SignedData` (DER or BER) holding
/// the profile plist, and the signer's certificates.
public struct SignedProfile: Sendable {
    /// The signed plist.
    public var content: [UInt8]
    /// The certificates the signature carries, the signer's first as signers put it.
    public var certificates: [Certificate]
    /// The whole CMS message, to verify.
    public var message: [UInt8]

    /// Why bytes that look like a signed profile are not one.
    public struct Failure: Error, Sendable {
        /// What is wrong with the signature or its chain.
        public var reason: String
    }

    /// True when `bytes` start as a DER/BER `SEQUENCE` rather than as a plist (XML, binary or JSON).
    public static func looksSigned(_ bytes: [UInt8]) -> Bool { bytes.count > 16 && bytes[0] == 0x30 }

    /// The profile inside a CMS `ContentInfo` of type `signedData`.
    public static func unwrap(_ bytes: [UInt8]) throws(Failure) -> SignedProfile {
        do {
            let root = try BER.parse(bytes)
            guard case .constructed(let top) = root.content else { throw Failure(reason: "not a CMS ContentInfo") }
            var nodes = top.makeIterator()
            guard let typeNode = nodes.next(),
                try ASN1ObjectIdentifier(berEncoded: typeNode) == [1, 2, 840, 113549, 1, 7, 2]
            else { throw Failure(reason: "the CMS message is not SignedData") }
            guard let explicit = nodes.next(), case .constructed(let wrapped) = explicit.content,
                let signedData = wrapped.first(where: { _ in true }), case .constructed(let fields) = signedData.content
            else { throw Failure(reason: "the SignedData is empty") }
            var parts = Array(fields)
            // version, digestAlgorithms, encapContentInfo, [0] certificates?, [1] crls?, signerInfos
            guard parts.count >= 4, case .constructed(let encapsulated) = parts[2].content else {
                throw Failure(reason: "the SignedData has no encapsulated content")
            }
            let encap = Array(encapsulated)
            guard encap.count == 2, case .constructed(let holder) = encap[1].content,
                let octets = holder.first(where: { _ in true })
            else { throw Failure(reason: "the signature is detached: the profile is not inside it") }
            let content = try ASN1OctetString(berEncoded: octets)
            var certificates: [Certificate] = []
            parts.removeFirst(3)
            if let set = parts.first, set.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
                case .constructed(let list) = set.content
            {
                for node in list { certificates.append(try Certificate(derEncoded: Array(node.encodedBytes))) }
            }
            return SignedProfile(content: Array(content.bytes), certificates: certificates, message: bytes)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(reason: "the CMS message does not parse: \(error)")
        }
    }

    /// The signer's subject as people read it (`CN=…, O=…`), from the first certificate.
    public var signer: String? { certificates.first.map { "\($0.subject)" } }

    /// The signer when the signature verifies and the signer's chain leads to one of `roots`; else why not.
    public func verify(trustRoots roots: [Certificate]) -> Result<Certificate, Failure> {
        let outcome = Outcome()
        let semaphore = DispatchSemaphore(value: 0)
        let message = message
        Task {
            let result = await CMS.isValidAttachedSignature(
                signatureBytes: message, trustRoots: CertificateStore(roots)
            ) { RFC5280Policy() }
            switch result {
            case .success(let valid): outcome.set(.success(valid.signer))
            case .failure(let error): outcome.set(.failure(Failure(reason: Self.describe(error))))
            }
            semaphore.signal()
        }
        semaphore.wait()
        return outcome.value ?? .failure(Failure(reason: "the signature was not checked"))
    }

    private static func describe(_ error: CMS.VerificationError) -> String {
        switch error {
        case .unableToValidateSigner(let failure):
            "the signer's certificate does not chain to a --ca certificate (\(failure.policyFailures.map { "\($0)" }.prefix(2).joined(separator: "; ")))"
        case .invalidCMSBlock(let block): "the CMS message is invalid: \(block.reason)"
        }
    }

    /// PEM certificates (`--ca`).
    public static func certificates(pem text: String) throws(Failure) -> [Certificate] {
        do {
            let documents = try PEMDocument.parseMultiple(pemString: text)
            guard !documents.isEmpty else { throw Failure(reason: "not PEM certificates: no BEGIN CERTIFICATE block") }
            return try documents.map { try Certificate(pemDocument: $0) }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(reason: "not PEM certificates: \(error)")
        }
    }
}

/// The result a task hands the thread waiting for it.
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<Certificate, SignedProfile.Failure>?

    func set(_ value: Result<Certificate, SignedProfile.Failure>) {
        lock.lock()
        stored = value
        lock.unlock()
    }

    var value: Result<Certificate, SignedProfile.Failure>? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
