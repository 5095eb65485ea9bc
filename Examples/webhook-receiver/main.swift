// A webhook receiver for mdmconf's events: it checks each delivery's Standard Webhooks signature with the
// endpoint's secret, refuses what does not verify (401), drops duplicates by `webhook-id` (delivery is at least
// once), and prints each event it accepts. See README.md.
import Foundation
import HTTPTypes
import Hummingbird
import WebhookEvents

/// One line on standard output, written at once (tests read it as it comes).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

struct Options {
    var host = "127.0.0.1"
    var port = 9000
    var secret = ProcessInfo.processInfo.environment["WEBHOOK_SECRET"]
    var out: String?
    var failFirst = 0
    var status = 204
    var hang = false

    static func parse(_ arguments: [String]) -> Options? {
        var options = Options()
        var index = 0
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--host": guard let host = value() else { return nil }; options.host = host
            case "--port": guard let port = value().flatMap(Int.init) else { return nil }; options.port = port
            case "--secret-file":
                guard let path = value(), let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                    return nil
                }
                options.secret = text
            case "--out": guard let path = value() else { return nil }; options.out = path
            case "--fail-first":
                guard let count = value().flatMap(Int.init) else { return nil }; options.failFirst = count
            case "--status": guard let status = value().flatMap(Int.init) else { return nil }; options.status = status
            case "--hang": options.hang = true
            default: return nil
            }
            index += 1
        }
        return options
    }
}

/// What the receiver has seen: event ids (for duplicates) and how many deliveries it still fails on purpose.
actor Ledger {
    private var seen: Set<String> = []
    private var failuresLeft: Int
    private let out: FileHandle?

    init(failFirst: Int, out: String?) {
        failuresLeft = failFirst
        if let out {
            FileManager.default.createFile(atPath: out, contents: nil)
            self.out = FileHandle(forWritingAtPath: out)
        } else {
            self.out = nil
        }
    }

    /// Whether to fail this delivery on purpose (`--fail-first`).
    func failThisOne() -> Bool {
        guard failuresLeft > 0 else { return false }
        failuresLeft -= 1
        return true
    }

    /// Records an accepted event; true when its id was seen before (a duplicate delivery).
    func record(id: String, type: String, subject: String) -> Bool {
        let duplicate = !seen.insert(id).inserted
        let line = "{\"id\":\"\(id)\",\"type\":\"\(type)\",\"subject\":\"\(subject)\",\"duplicate\":\(duplicate)}\n"
        out?.write(Data(line.utf8))
        say("\(duplicate ? "duplicate" : "verified") \(type) \(subject) \(id)")
        return duplicate
    }
}

guard let options = Options.parse(Array(CommandLine.arguments.dropFirst())) else {
    FileHandle.standardError.write(
        Data(
            "usage: webhook-receiver [--host H] [--port P] [--secret-file F] [--out FILE] [--fail-first N] [--status CODE] [--hang]\n"
                .utf8))
    exit(64)
}
guard let secret = options.secret, let signature = try? WebhookSignature(secrets: secret) else {
    FileHandle.standardError.write(
        Data("error: give the endpoint's whsec_ secret (--secret-file or WEBHOOK_SECRET)\n".utf8))
    exit(64)
}
let ledger = Ledger(failFirst: options.failFirst, out: options.out)
let router = Router()
@Sendable func receive(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
    let body = try await request.body.collect(upTo: 1 << 20)
    let bytes = Array(body.readableBytesView)
    let headers = request.headers
    func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
    let verified = signature.verify(
        id: header("webhook-id"), timestamp: header("webhook-timestamp"), signatures: header("webhook-signature"),
        body: bytes, now: Int64(Date().timeIntervalSince1970))
    if case .failure(let reason) = verified {
        say("rejected \(header("webhook-id") ?? "-"): \(reason)")
        return Response(status: .unauthorized)
    }
    if options.hang {
        try await Task.sleep(for: .seconds(3600))
    }
    if await ledger.failThisOne() { return Response(status: .internalServerError) }
    guard let event = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
        let id = event["id"] as? String, let type = event["type"] as? String
    else {
        return Response(status: .badRequest)
    }
    _ = await ledger.record(id: id, type: type, subject: event["subject"] as? String ?? "")
    return Response(status: HTTPResponse.Status(code: options.status))
}
router.post("/", use: receive)
router.post("**", use: receive)
let app = Application(
    router: router, configuration: .init(address: .hostname(options.host, port: options.port)),
    onServerRunning: { channel in
        say("listening on \(channel.localAddress?.description ?? "")")
    })
try await app.runService()
