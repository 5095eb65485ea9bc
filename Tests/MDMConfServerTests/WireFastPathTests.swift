import Fleet
import FleetTestSupport
import Foundation
import MDMConfServer
import Testing

/// Configuration GETs answered from the connection's bytes, in front of the HTTP decoder: each gets exactly the
/// answer the route gives, whatever the request looks like, and the connection keeps its order and its deadline.
struct WireFastPathTests {
    static let auth = "Authorization: Bearer example-admin-token-c0ffee\r\n"
    static let etag = "\"9bfc1772fe2cd4f20de3f94867a58d69\""

    /// Requests at and beyond the edge of what the front path takes. Each ends with `Connection: close`.
    static let requests: [(name: String, text: String)] = configRequests + updateChecks.map(updateCheck)

    static func updateCheck(_ name: String, _ body: String, _ extra: String) -> (name: String, text: String) {
        let head = "POST /v1/update-check HTTP/1.1\r\nHost: x\r\n" + extra
        return (name, head + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body)
    }

    /// Update checks: name, body and extra header lines (the admin token unless they say otherwise).
    static let updateChecks: [(String, String, String)] = [
        (
            "update check",
            #"{"app": "com.example.field", "version": "3.0.2", "platform": "ios", "osVersion": "17.4", "deviceId": "ipad-0042"}"#,
            auth
        ),
        ("update check, invalid", #"{"app": "com.example.field", "version": "three", "platform": "ios"}"#, auth),
        (
            "update check, wrong type", #"{"app": "com.example.field", "version": 3, "platform": "ios", "x-extra": 1}"#,
            auth
        ),
        ("update check, unknown app", #"{"app": "com.example.nope", "version": "1.0", "platform": "ios"}"#, auth),
        ("update check, not JSON", "app=com.example.field", auth),
        ("update check, empty", "", auth),
        ("update check, no token", #"{"app": "com.example.field", "version": "3.0.2", "platform": "ios"}"#, ""),
        (
            "update check, device token", #"{"app": "com.example.field", "version": "3.0.2", "platform": "ios"}"#,
            "Authorization: Bearer example-device-token-iphone-0117\r\n"
        ),
    ]

    static let configRequests: [(name: String, text: String)] =
        ([
            ("device config", "GET /v1/apps/com.example.field/config?device=ipad-0042 HTTP/1.1\r\nHost: x\r\n\(auth)"),
            (
                "304",
                "GET /v1/apps/com.example.field/config?device=ipad-0042 HTTP/1.1\r\n\(auth)If-None-Match: \(etag)\r\n"
            ),
            ("304 for *", "GET /v1/apps/com.example.field/config HTTP/1.1\r\n\(auth)If-None-Match: *\r\n"),
            ("another ETag", "GET /v1/apps/com.example.field/config HTTP/1.1\r\n\(auth)If-None-Match: \"0\"\r\n"),
            (
                "lower-case names",
                "GET /v1/apps/com.example.field/config HTTP/1.1\r\nhost: x\r\nauthorization: Bearer example-admin-token-c0ffee\r\n"
            ),
            (
                "tab and trailing spaces",
                "GET /v1/apps/com.example.field/config HTTP/1.1\r\nAuthorization:\tBearer example-admin-token-c0ffee  \r\n"
            ),
            (
                "JSON",
                "GET /v1/apps/com.example.field/config?device=iphone-0117 HTTP/1.1\r\n\(auth)Accept: application/json\r\n"
            ),
            ("Android device", "GET /v1/apps/com.example.field/config?device=pixel-0500 HTTP/1.1\r\n\(auth)"),
            ("platform", "GET /v1/apps/com.example.field/config?platform=android&device= HTTP/1.1\r\n\(auth)"),
            ("not acceptable", "GET /v1/apps/com.example.field/config HTTP/1.1\r\n\(auth)Accept: text/html\r\n"),
            ("no token", "GET /v1/apps/com.example.field/config HTTP/1.1\r\nHost: x\r\n"),
            (
                "device token",
                "GET /v1/apps/com.example.field/config HTTP/1.1\r\nAuthorization: Bearer example-device-token-iphone-0117\r\n"
            ),
            (
                "device token, other device",
                "GET /v1/apps/com.example.field/config?device=ipad-0042 HTTP/1.1\r\nAuthorization: Bearer example-device-token-iphone-0117\r\n"
            ),
            ("two tokens", "GET /v1/apps/com.example.field/config HTTP/1.1\r\n\(auth)Authorization: Bearer nope\r\n"),
            ("unknown app", "GET /v1/apps/com.example.nope/config HTTP/1.1\r\n\(auth)"),
            ("unknown device", "GET /v1/apps/com.example.field/config?device=nope HTTP/1.1\r\n\(auth)"),
            ("empty app", "GET /v1/apps//config HTTP/1.1\r\n\(auth)"),
            ("escaped target", "GET /v1/apps/com.example.fi%65ld/config HTTP/1.1\r\n\(auth)"),
            ("HTTP/1.0", "GET /v1/apps/com.example.field/config HTTP/1.0\r\n\(auth)"),
            ("empty body", "GET /v1/apps/com.example.field/config HTTP/1.1\r\n\(auth)Content-Length: 0\r\n"),
            ("Expect", "GET /v1/apps/com.example.field/config HTTP/1.1\r\n\(auth)Expect: 100-continue\r\n"),
            ("other route", "GET /v1/apps/com.example.field/policy HTTP/1.1\r\n\(auth)"),
        ] as [(name: String, text: String)]).map { (name: String, text: String) in
            (name, text + "Connection: close\r\n\r\n")
        }

    /// Each request alone (answered in front of the decoder when it can be) and the same request behind a health
    /// check on the same connection (so the decoder and the route answer it): the same status, headers and body.
    /// One server, one request at a time: each exchange blocks a thread until the server closes, and a table's
    /// worth of them at once would starve the threads the route's answers run on.
    @Test func theFrontPathAnswersAsTheRouteDoes() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            for (name, request) in Self.requests {
                try await Self.expectTheRoutesAnswer(http, name, request)
            }
        }
    }

    /// Check-ins, stored or refused, answer alone as they do behind a health check (the route's answer); each
    /// stored one is stored, and the refused ones are not.
    @Test func checkInsAnswerAsTheRouteDoes() async throws {
        let store = try await TestStores.open(.sqlite)
        let fleet = FleetService(store: store, replica: "r")
        let device = "Authorization: Bearer example-device-token-iphone-0117\r\n"
        let valid =
            #"{"platform": "ios", "osVersion": "17.4", "apps": [{"app": "com.example.field", "version": "3.0.2"}]}"#
        let cases: [(String, String, String)] = [
            ("stored", valid, device),
            ("admin names the device", #"{"device": "ipad-0042", "platform": "ios", "apps": []}"#, Self.auth),
            ("invalid", #"{"platform": "ios", "apps": [{"app": "com.example.field", "version": "x.y"}]}"#, device),
            ("not JSON", "platform=ios", device),
            ("no token", valid, ""),
            ("another device", #"{"device": "ipad-0042", "platform": "ios", "apps": []}"#, device),
        ]
        try await Fixture.live(try Fixture.store(), fleet: fleet) { http, _ in
            for (name, body, extra) in cases {
                let request =
                    "POST /v1/checkin HTTP/1.1\r\nHost: x\r\n\(extra)Content-Length: \(body.utf8.count)\r\n"
                    + "Connection: close\r\n\r\n\(body)"
                try await Self.expectTheRoutesAnswer(http, name, request)
            }
        }
        // Two stored by each of the two check-ins that are valid.
        #expect(try await store.counts().checkIns == 4)
        try await store.close()
    }

    /// Transfer-Encoding on a GET goes to the decoder, which reads the (empty) chunked body.
    @Test func aChunkedGetIsTheDecoders() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            let text =
                "GET /v1/apps/com.example.field/config HTTP/1.1\r\n\(Self.auth)Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n"
            let answers = try Self.responses(await http.sendReadingToClose(text))
            #expect(answers.count == 1 && answers[0].hasPrefix("HTTP/1.1 200"), "\(answers)")
        }
    }

    /// A head that arrives in pieces is read by the decoder.
    @Test func aHeadInPiecesIsAnswered() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            let answer = try await http.send(
                ["GET /v1/apps/com.example.field/config?device=ipad-0042 HTTP/1.1\r\nHost: x\r\n", Self.auth + "\r\n"],
                pause: 0.05)
            #expect(answer?.status == 200)
            #expect(answer?.header("ETag") == Self.etag)
        }
    }

    /// Answers written in front of the decoder and by the route, pipelined on one connection, come in order.
    @Test func pipelinedAnswersKeepTheirOrder() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            let body = #"{"app": "com.example.field", "version": "3.2.1", "platform": "ios", "osVersion": "17.4"}"#
            let text =
                "GET /v1/apps/com.example.field/config?device=ipad-0042 HTTP/1.1\r\n\(Self.auth)\r\n"
                + "GET /v1/apps/com.example.field/config?device=ipad-0042 HTTP/1.1\r\n\(Self.auth)If-None-Match: \(Self.etag)\r\n\r\n"
                + "POST /v1/update-check HTTP/1.1\r\nHost: x\r\n\(Self.auth)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
                + "GET /v1/apps/com.example.field/config?device=iphone-0117 HTTP/1.1\r\n\(Self.auth)Accept: application/json\r\nConnection: close\r\n\r\n"
            let answers = try Self.responses(await http.sendReadingToClose(text))
            try #require(answers.count == 4, "\(answers)")
            #expect(answers[0].hasPrefix("HTTP/1.1 200") && answers[0].contains("dock.team@example.com"))
            #expect(answers[1].hasPrefix("HTTP/1.1 304"))
            #expect(answers[2].contains(#""decision""#))
            #expect(answers[3].contains(#""UserEmail": "ana.lima@example.com""#))
        }
    }

    /// A keep-alive connection answered only in front of the decoder is measured against the request deadline from
    /// its last answer, not from when it opened; idle past the deadline, it is closed. Requests go every half second
    /// until the connection has outlived the deadline one and a half times; a gap that the machine's load stretched
    /// near the deadline proves nothing either way and starts over on a new connection.
    @Test func theDeadlineCountsFromTheLastAnswer() async throws {
        let timeout = 3.0
        let copy = try CatalogCopy(settings: "<key>requestTimeout</key><real>\(timeout)</real>")
        try await Fixture.live(try Fixture.store(copy.root.path)) { http, _ in
            let clock = ContinuousClock()
            func seconds(_ since: ContinuousClock.Instant) -> Double {
                let elapsed = clock.now - since
                return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            }
            let start = clock.now
            var connection = try RawHTTP.Connection(port: http.port)
            var opened = clock.now
            var last = opened
            // The server sent its last answer somewhere between the request and when this test read the answer:
            // a loaded machine can leave the answer unread for a while, so the server's idle time is at most the
            // gap plus that round trip.
            var roundTrip = 0.0
            var outlived = false
            while !outlived, seconds(start) < 120 {
                let gap = seconds(last)
                let asked = clock.now
                let answer: RawHTTP.Response? =
                    await connection.write("GET /v1/apps/com.example.field/config HTTP/1.1\r\n\(Self.auth)\r\n")
                    ? try await connection.response() : nil
                guard answer?.status == 200 else {
                    #expect(
                        gap + roundTrip > timeout * 0.8,
                        "closed \(gap) s after the last answer (read \(roundTrip) s after asking): \(String(describing: answer))"
                    )
                    connection = try RawHTTP.Connection(port: http.port)
                    opened = clock.now
                    last = opened
                    roundTrip = 0
                    continue
                }
                last = clock.now
                roundTrip = seconds(asked)
                outlived = seconds(opened) > timeout * 1.5
                if !outlived { try await Task.sleep(for: .milliseconds(500)) }
            }
            #expect(outlived)
            guard case .closed = await connection.outcome(within: timeout * 4) else {
                Issue.record("an idle connection outlived the deadline")
                return
            }
        }
    }

    /// `request` sent alone and behind a health check on one connection gets the same answer.
    static func expectTheRoutesAnswer(_ http: RawHTTP, _ name: String, _ request: String) async throws {
        let alone = try responses(await http.sendReadingToClose(request))
        let behind = try responses(await http.sendReadingToClose("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" + request))
        guard alone.count == 1, behind.count == 2 else {
            Issue.record("\(name): \(alone) against \(behind)")
            return
        }
        #expect(alone[0] == behind[1], "\(name)")
    }

    /// The responses in `text`, split by their Content-Length (none for 304), each without its `Date`, its
    /// `Connection` (the front path says `Connection: close` when it closes; the route's encoder leaves it out) and
    /// a decision's `evaluatedAt` and a check-in's `receivedAt` (a second may pass between the two).
    static func responses(_ text: String) throws -> [String] {
        var rest = Substring(text)
        var answers: [String] = []
        while !rest.isEmpty {
            let head = try #require(rest.range(of: "\r\n\r\n"), "no head end in \(rest)")
            let lines = rest[..<head.lowerBound].components(separatedBy: "\r\n")
            let length =
                lines.first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            let bodyEnd = rest.utf8.index(head.upperBound, offsetBy: length)
            let kept = lines.filter { !$0.hasPrefix("Date:") && !$0.hasPrefix("Connection:") }.joined(separator: "\r\n")
            let body = rest[head.upperBound..<bodyEnd].split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.contains("\"evaluatedAt\"") && !$0.contains("\"receivedAt\"") }.joined(separator: "\n")
            answers.append(kept + "\r\n\r\n" + body)
            rest = rest[bodyEnd...]
        }
        return answers
    }
}
