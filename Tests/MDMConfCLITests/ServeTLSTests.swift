import Foundation
import MDMConfServer
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `mdmconf serve` over real TLS on loopback (*Serving a catalog*), with curl as the client: it verifies against the
/// development CA, speaks HTTP/2 by ALPN, and refuses a wrong host name and an unknown CA.
@Suite struct ServeTLSTests {
    static func folder() -> String {
        let path = Scratch.url("tls-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// curl with `arguments`: its exit status and what `-w` wrote.
    static func curl(_ arguments: [String]) throws -> CLIProcess.Result {
        try CLIProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["curl", "-sS", "--max-time", "30"] + arguments,
            in: CLIProcess.packageRoot)
    }

    static let admin = ["-H", "Authorization: Bearer example-admin-token-c0ffee"]

    @Test func devCertServesHTTP2AndHTTP1VerifiedByItsCA() throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess([
            "serve", "Examples/catalog", "--store", "none", "--port", "0", "--dev-cert", dir,
        ])
        defer { _ = server.stop() }
        #expect(server.log.contains("created a development CA"))
        let base = "https://localhost:\(server.port)"
        let ca = ["--cacert", dir + "/ca.pem"]
        // HTTP/2 by ALPN.
        let h2 = try Self.curl(
            ca + ["--http2", "-o", "/dev/null", "-w", "%{http_version} %{http_code}", base + "/healthz"])
        #expect(h2.status == 0, "\(h2.stderr)")
        #expect(h2.stdout == "2 200")
        // HTTP/1.1 over TLS keeps the configuration fast path: ETag, then 304.
        let config = try Self.curl(
            ca + Self.admin + ["--http1.1", "-D", "-", "-o", "/dev/null", base + "/v1/apps/com.example.field/config"])
        #expect(config.status == 0, "\(config.stderr)")
        let etag = try #require(
            config.stdout.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }?.dropFirst(6))
        let again = try Self.curl(
            ca + Self.admin + [
                "--http1.1", "-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: \(etag)",
                base + "/v1/apps/com.example.field/config",
            ])
        #expect(again.stdout == "304")
        // The same over HTTP/2.
        let h2config = try Self.curl(
            ca + Self.admin + ["--http2", "-w", "\n%{http_version}", base + "/v1/apps/com.example.field/config"])
        #expect(h2config.stdout.contains("<key>ServerURL</key>") && h2config.stdout.hasSuffix("\n2"))
        // The machine's IP names are in the certificate too.
        let ip = try Self.curl(
            ca + ["-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(server.port)/healthz"])
        #expect(ip.stdout == "200", "\(ip.stderr)")
        // A wrong host name and an unknown CA are refused by the client (curl exit 60).
        let wrong = try Self.curl(
            ca + [
                "--resolve", "wrong.example:\(server.port):127.0.0.1", "https://wrong.example:\(server.port)/healthz",
            ])
        #expect(wrong.status == 60)
        #expect(wrong.stderr.contains("wrong.example"))
        let untrusted = try Self.curl([base + "/healthz"])
        #expect(untrusted.status == 60)
        // Plain HTTP on the TLS port gets no answer.
        let plain = try Self.curl(["http://127.0.0.1:\(server.port)/healthz"])
        #expect(plain.status != 0)
        // Keys are private to their owner.
        for key in ["ca-key.pem", "server-key.pem"] {
            let mode = try FileManager.default.attributesOfItem(atPath: dir + "/" + key)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(key)")
        }
    }

    @Test func devCertIsMadeOnce() throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try DevCertificates.ensure(in: dir)
        #expect(first.createdCA && first.issuedCertificate)
        let ca = try String(contentsOfFile: dir + "/ca.pem", encoding: .utf8)
        let certificate = try String(contentsOfFile: dir + "/server.pem", encoding: .utf8)
        let second = try DevCertificates.ensure(in: dir)
        #expect(!second.createdCA && !second.issuedCertificate)
        #expect(try String(contentsOfFile: dir + "/server.pem", encoding: .utf8) == certificate)
        // A new name (another network) issues a new server certificate from the same CA.
        let third = try DevCertificates.ensure(in: dir, names: DevCertificates.machineNames() + ["field-qa.example"])
        #expect(!third.createdCA && third.issuedCertificate)
        #expect(try String(contentsOfFile: dir + "/ca.pem", encoding: .utf8) == ca)
        #expect(
            try TLSPair.load(certificate: dir + "/server.pem", key: dir + "/server-key.pem").names.contains(
                "field-qa.example"))
    }

    struct StartCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// Arguments after `serve Examples/catalog --store none --port 0`, with DIR for the case's folder.
        var arguments: [String]
        var status: Int32
        var message: String
        var testDescription: String { name }
    }

    static let startCases: [StartCase] = [
        StartCase(
            name: "missing certificate",
            arguments: ["--tls-cert", "DIR/none.pem", "--tls-key", "DIR/good/server-key.pem"],
            status: 78, message: "does not exist"),
        StartCase(
            name: "key of another certificate",
            arguments: ["--tls-cert", "DIR/good/server.pem", "--tls-key", "DIR/other/server-key.pem"], status: 78,
            message: "is not the key of the certificate"),
        StartCase(
            name: "expired certificate",
            arguments: ["--tls-cert", "DIR/expired/server.pem", "--tls-key", "DIR/expired/server-key.pem"], status: 78,
            message: "expired at"),
        StartCase(
            name: "not PEM", arguments: ["--tls-cert", "DIR/garbage.pem", "--tls-key", "DIR/good/server-key.pem"],
            status: 78, message: "is not a PEM certificate"),
        StartCase(
            name: "a key that is a certificate",
            arguments: ["--tls-cert", "DIR/good/server.pem", "--tls-key", "DIR/good/server.pem"], status: 78,
            message: "is not a PEM private key"),
        StartCase(
            name: "certificate without key", arguments: ["--tls-cert", "DIR/good/server.pem"], status: 64,
            message: "go together"),
        StartCase(
            name: "dev-cert and a pair", arguments: ["--dev-cert", "DIR/dev", "--tls-cert", "x", "--tls-key", "y"],
            status: 64, message: "leave out --tls-cert"),
    ]

    @Test func startUpChecks() throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try DevCertificates.ensure(in: dir + "/good")
        _ = try DevCertificates.ensure(in: dir + "/other")
        let past = Date().addingTimeInterval(-400 * 86400)
        _ = try DevCertificates.ensure(in: dir + "/expired", now: past, serverLifetimeDays: 30)
        try "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n".write(
            toFile: dir + "/garbage.pem", atomically: true, encoding: .utf8)
        for testCase in Self.startCases {
            let arguments = testCase.arguments.map { $0.replacingOccurrences(of: "DIR", with: dir) }
            let result = try CLIProcess.run(
                ["serve", "Examples/catalog", "--store", "none", "--port", "0"] + arguments)
            #expect(result.status == testCase.status, "\(testCase.name): \(result.stderr)")
            #expect(result.stderr.contains(testCase.message), "\(testCase.name): \(result.stderr)")
        }
    }

    /// SIGHUP reads the pair again: a good new pair serves new connections, a bad one is logged and the last good
    /// pair stays.
    @Test func sighupReloadsTheCertificateAndKeepsTheLastGoodOne() throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try DevCertificates.ensure(in: dir + "/one")
        _ = try DevCertificates.ensure(in: dir + "/two")
        let fm = FileManager.default
        try fm.copyItem(atPath: dir + "/one/server.pem", toPath: dir + "/server.pem")
        try fm.copyItem(atPath: dir + "/one/server-key.pem", toPath: dir + "/server-key.pem")
        let server = try ServerProcess([
            "serve", "Examples/catalog", "--store", "none", "--port", "0", "--tls-cert", dir + "/server.pem",
            "--tls-key", dir + "/server-key.pem",
        ])
        defer { _ = server.stop() }
        let url = "https://localhost:\(server.port)/healthz"
        func status(trusting ca: String) throws -> Int32 {
            try Self.curl(["--cacert", dir + "/\(ca)/ca.pem", "-o", "/dev/null", url]).status
        }
        #expect(try status(trusting: "one") == 0)
        #expect(try status(trusting: "two") == 60)
        func replace(with source: String) throws {
            for name in ["server.pem", "server-key.pem"] {
                try fm.removeItem(atPath: dir + "/" + name)
                try fm.copyItem(atPath: dir + "/\(source)/\(name)", toPath: dir + "/" + name)
            }
        }
        func hangUpAndWait(for text: String) throws {
            let before = server.log.components(separatedBy: text).count
            kill(server.process.processIdentifier, SIGHUP)
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline && server.log.components(separatedBy: text).count == before { usleep(50_000) }
            #expect(server.log.components(separatedBy: text).count > before, "no '\(text)' in \(server.log)")
        }
        try replace(with: "two")
        try hangUpAndWait(for: "TLS certificate reloaded")
        #expect(try status(trusting: "two") == 0)
        #expect(try status(trusting: "one") == 60)
        // A key that does not match: refused, the last good pair (two) stays.
        try fm.removeItem(atPath: dir + "/server-key.pem")
        try fm.copyItem(atPath: dir + "/one/server-key.pem", toPath: dir + "/server-key.pem")
        try hangUpAndWait(for: "TLS certificate not reloaded")
        #expect(try status(trusting: "two") == 0)
    }
}
