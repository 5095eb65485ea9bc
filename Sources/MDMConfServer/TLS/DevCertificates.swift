import Crypto
import Foundation
import SwiftASN1
import X509

#if canImport(Glibc)
    import Glibc
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    import Darwin
    private let systemWrite = Darwin.write
#endif

/// `serve --dev-cert DIR`: a local certificate authority and a server certificate for this machine's names,
/// made once (*Serving a catalog*). The CA (`ca.pem`, kept with its key `ca-key.pem`, 0600) is what a test device
/// trusts; the server certificate (`server.pem`, `server-key.pem`) is issued again when it is missing, expires
/// within 30 days or no longer names every name of the machine. P-256 keys; the server certificate lives 397
/// days, inside Apple's limit for TLS server certificates.
public enum DevCertificates {
    /// The four files of a `--dev-cert` folder.
    public struct Files: Sendable {
        /// The folder they live in.
        public let folder: String
        /// The CA certificate, the one file to install on a test device.
        public var ca: String { folder + "/ca.pem" }
        /// The CA's private key (0600): whoever holds it can impersonate any server to a device that trusts the CA.
        public var caKey: String { folder + "/ca-key.pem" }
        /// The server certificate, followed by the CA certificate.
        public var certificate: String { folder + "/server.pem" }
        /// The server certificate's private key (0600).
        public var key: String { folder + "/server-key.pem" }
    }

    /// What `ensure` did.
    public struct Outcome: Sendable {
        /// Where the certificates are.
        public let files: Files
        /// True when a new CA was made (none, or an unreadable one, was there).
        public let createdCA: Bool
        /// True when a new server certificate was issued (none, expiring within 30 days, or missing a name).
        public let issuedCertificate: Bool
        /// The names the server certificate covers.
        public let names: [String]
    }

    /// Makes (or reuses) the CA and the server certificate in `folder` for `names` (default: this machine's).
    public static func ensure(
        in folder: String, names: [String]? = nil, now: Date = Date(), serverLifetimeDays: Int = 397
    ) throws(TLSProblem) -> Outcome {
        let files = Files(folder: folder)
        let names = names ?? machineNames()
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw TLSProblem("--dev-cert \(folder) cannot be created: \(error.localizedDescription)")
        }
        do {
            var createdCA = false
            let caKey: Certificate.PrivateKey
            let ca: Certificate
            if FileManager.default.fileExists(atPath: files.ca) {
                ca = try Certificate(pemEncoded: try String(contentsOfFile: files.ca, encoding: .utf8))
                caKey = try Certificate.PrivateKey(pemEncoded: try String(contentsOfFile: files.caKey, encoding: .utf8))
                guard caKey.publicKey == ca.publicKey else {
                    throw TLSProblem("\(files.caKey) is not the key of \(files.ca): remove both to make a new CA")
                }
            } else {
                caKey = Certificate.PrivateKey(P256.Signing.PrivateKey())
                let name = try DistinguishedName {
                    CommonName("mdmconf development CA (\(machineHostName()))")
                    OrganizationName("mdmconf development")
                }
                ca = try Certificate(
                    version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: caKey.publicKey,
                    notValidBefore: now.addingTimeInterval(-3600),
                    notValidAfter: now.addingTimeInterval(10 * 365 * 86400),
                    issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                    extensions: try Certificate.Extensions {
                        Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                        Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                        SubjectKeyIdentifier(hash: caKey.publicKey)
                    },
                    issuerPrivateKey: caKey)
                try write(try caKey.serializeAsPEM().pemString, to: files.caKey, secret: true)
                try write(try ca.serializeAsPEM().pemString, to: files.ca, secret: false)
                createdCA = true
            }
            var issue = createdCA
            if !issue {
                if let pair = try? TLSPair.load(certificate: files.certificate, key: files.key, now: now),
                    pair.notValidAfter > now.addingTimeInterval(30 * 86400),
                    Set(names.map(canonical)).isSubset(of: Set(pair.names.map(canonical)))
                {
                    issue = false
                } else {
                    issue = true
                }
            }
            if issue {
                let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
                let subject = try DistinguishedName {
                    CommonName(names.first ?? "localhost")
                    OrganizationName("mdmconf development")
                }
                let certificate = try Certificate(
                    version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
                    notValidBefore: now.addingTimeInterval(-3600),
                    notValidAfter: now.addingTimeInterval(Double(serverLifetimeDays) * 86400), issuer: ca.subject,
                    subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
                    extensions: try Certificate.Extensions {
                        Critical(BasicConstraints.notCertificateAuthority)
                        Critical(KeyUsage(digitalSignature: true))
                        try ExtendedKeyUsage([.serverAuth])
                        SubjectAlternativeNames(names.map(generalName))
                        SubjectKeyIdentifier(hash: key.publicKey)
                        AuthorityKeyIdentifier(
                            keyIdentifier: (try? ca.extensions.subjectKeyIdentifier)?.keyIdentifier)
                    },
                    issuerPrivateKey: caKey)
                try write(try key.serializeAsPEM().pemString, to: files.key, secret: true)
                try write(try certificate.serializeAsPEM().pemString, to: files.certificate, secret: false)
            }
            return Outcome(files: files, createdCA: createdCA, issuedCertificate: issue, names: names)
        } catch let problem as TLSProblem {
            throw problem
        } catch {
            throw TLSProblem("--dev-cert \(folder): \(error)")
        }
    }

    static func generalName(_ name: String) -> GeneralName {
        if let bytes = ipBytes(name) { return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes))) }
        return .dnsName(name)
    }

    /// A name as the certificate compares it: addresses in one spelling (`::1` and `0:0:…:1` alike), host names
    /// in lower case.
    static func canonical(_ name: String) -> String {
        ipBytes(name).map(TLSPair.ipText) ?? name.lowercased()
    }

    static func ipBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// `localhost`, the host name (and `NAME.local`, as Bonjour announces it), loopback and every configured
    /// IPv4 address: what a device on the same network may type.
    public static func machineNames() -> [String] {
        var names = ["localhost"]
        let host = machineHostName()
        if !host.isEmpty, host != "localhost" {
            names.append(host)
            if !host.contains(".") { names.append(host + ".local") }
        }
        names += ["127.0.0.1", "::1"]
        var list: UnsafeMutablePointer<ifaddrs>?
        if getifaddrs(&list) == 0, let first = list {
            var cursor: UnsafeMutablePointer<ifaddrs>? = first
            while let entry = cursor {
                if let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) {
                    var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { socket in
                        var copy = socket.pointee.sin_addr
                        _ = inet_ntop(AF_INET, &copy, &text, socklen_t(INET_ADDRSTRLEN))
                    }
                    let ip = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    if !ip.isEmpty, !names.contains(ip) { names.append(ip) }
                }
                cursor = entry.pointee.ifa_next
            }
            freeifaddrs(first)
        }
        return names
    }

    static func machineHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes `text` to a temporary file, fsyncs and renames it over `path`; keys are 0600.
    static func write(_ text: String, to path: String, secret: Bool) throws {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, secret ? 0o600 : 0o644)
        guard fd >= 0 else { throw TLSProblem("cannot write \(path): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw TLSProblem("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
