import ConfigSchema
import Crypto
import Foundation
import MDMConf
import MDMDiagnostics
import TestScratch
import Testing

@_spi(CMS) import X509

private let corpus = BundledContentTests.packageRoot.deletingLastPathComponent()
    .appendingPathComponent("shared/corpus/apple-device-management").path

/// Signed configuration profiles: the certificates are made here, the example Wi-Fi profile is signed with CMS as MDMs
/// sign profiles, and `validate` checks the plist inside, names the signer, and verifies the chain with `--ca`.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: corpus), "corpus not found beside the project"))
struct SignedProfileTests {
    struct Identity {
        var certificate: Certificate
        var key: P256.Signing.PrivateKey
    }

    static func authority(_ name: String) throws -> Identity {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName {
            CommonName(name)
            OrganizationName("mdmconf tests")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(86_400),
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            }, issuerPrivateKey: .init(key))
        return Identity(certificate: certificate, key: key)
    }

    static func signer(issuedBy authority: Identity) throws -> Identity {
        let key = P256.Signing.PrivateKey()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(86_400),
            issuer: authority.certificate.subject,
            subject: try DistinguishedName {
                CommonName("Example MDM profile signing")
                OrganizationName("Example Corp")
            }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
            }, issuerPrivateKey: .init(authority.key))
        return Identity(certificate: certificate, key: key)
    }

    static let profile = BundledContentTests.packageRoot.appendingPathComponent(
        "Examples/device-policy/profiles/40-wifi.mobileconfig")

    static func write(_ bytes: [UInt8]) throws -> String {
        let file = Scratch.url("signed-\(UUID().uuidString).mobileconfig")
        try Data(bytes).write(to: file)
        return file.path
    }

    static func run(_ path: String, trustRoots: [Certificate]? = nil) -> [Diagnostic] {
        var validation = ConfigValidation(discovery: SchemaDiscovery(folders: [corpus]))
        validation.trustRoots = trustRoots
        return validation.run([path]).files.first?.report.diagnostics ?? []
    }

    @Test func aSignedProfileIsCheckedByItsContentAndNamesItsSigner() throws {
        let authority = try Self.authority("Example Profile CA")
        let signer = try Self.signer(issuedBy: authority)
        let plist = Array(try Data(contentsOf: Self.profile))
        let signed = try CMS.sign(
            plist, signatureAlgorithm: .ecdsaWithSHA256, additionalIntermediateCertificates: [],
            certificate: signer.certificate, privateKey: .init(signer.key), detached: false)
        let path = try Self.write(signed)
        let plain = Self.run(Self.profile.path).map { "\($0.code.code) \($0.line ?? 0)" }

        // Unverified: the same findings as the plain profile, after one naming the signer.
        let unverified = Self.run(path)
        #expect(unverified.first?.code == SchemaCode.signedProfile && unverified.first?.severity == .info)
        #expect(unverified.first?.message.contains("CN=Example MDM profile signing") == true, "\(unverified.first?.message ?? "")")
        #expect(unverified.dropFirst().map { "\($0.code.code) \($0.line ?? 0)" } == plain)

        // With the right CA the chain verifies; with another it does not.
        let verified = Self.run(path, trustRoots: [authority.certificate])
        #expect(verified.first?.code == SchemaCode.signedProfile, "\(verified.first?.message ?? "")")
        #expect(verified.first?.message.contains("verify") == true)
        let other = try Self.authority("Someone Else CA")
        let refused = Self.run(path, trustRoots: [other.certificate])
        #expect(refused.first?.code == SchemaCode.signatureInvalid && refused.first?.severity == .error)

        // A profile changed after signing: the signature no longer verifies.
        var tampered = signed
        let needle = Array("ACME-Store".utf8)
        if let start = (0..<(tampered.count - needle.count)).first(where: { Array(tampered[$0..<$0 + needle.count]) == needle }) {
            tampered[start] = UInt8(ascii: "a")
        }
        let changed = Self.run(try Self.write(tampered), trustRoots: [authority.certificate])
        #expect(changed.first?.code == SchemaCode.signatureInvalid, "\(changed.map(\.message))")
    }

    @Test func aBrokenOrDetachedSignatureIsRefused() throws {
        let authority = try Self.authority("Example Profile CA")
        let signer = try Self.signer(issuedBy: authority)
        let plist = Array(try Data(contentsOf: Self.profile))
        let detached = try CMS.sign(
            plist, signatureAlgorithm: .ecdsaWithSHA256, certificate: signer.certificate,
            privateKey: .init(signer.key), detached: true)
        let findings = Self.run(try Self.write(detached))
        #expect(findings.map(\.code) == [SchemaCode.signatureInvalid])
        #expect(findings.first?.message.contains("detached") == true, "\(findings.first?.message ?? "")")
        let truncated = Self.run(try Self.write(Array(detached.prefix(40))))
        #expect(truncated.map(\.code) == [SchemaCode.signatureInvalid])
    }
}
