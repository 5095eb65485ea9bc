import CivilTime
import Foundation
import MDMDiagnostics
import Testing
import UpdatePolicy

/// The check-in answer is one type for both sides: what the server writes (``CheckInAnswer/json``) is what an app
/// decodes with `JSONDecoder`, and its own `Encodable` form reads back the same.
@Suite(.enabled(if: ZoneInfo(named: "America/New_York") != nil, "no tz database on this machine"))
struct CheckInAnswerTests {
    static func answer() throws -> CheckInAnswer {
        let evaluator = try EvaluationTests.evaluator(EvaluationTests.deadlinePolicy)
        let decision = try EvaluationTests.decide(evaluator, ["now": "2025-06-09T12:00:00Z"])
        return CheckInAnswer(
            device: "iphone-0117", receivedAt: "2025-06-09T12:00:01Z", catalogGeneration: 7,
            apps: [
                .init(app: "com.acme.app", config: .init(status: .stale, etag: "\"8f\""), update: decision.json),
                .init(app: "com.other.notes", config: .init(status: .none, etag: nil), update: nil),
            ])
    }

    /// Members of every object in key order, as a decoder reads them.
    static func sorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            .object(members.map { ($0.0, sorted($0.1)) }.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) })
        case .array(let items): .array(items.map(sorted))
        default: value
        }
    }

    @Test func whatTheServerWritesDecodes() throws {
        let answer = try Self.answer()
        let text = answer.json.serialized(pretty: false)
        #expect(text.hasPrefix(#"{"device":"iphone-0117","receivedAt":"2025-06-09T12:00:01Z","catalogGeneration":7,"apps":[{"app":"com.acme.app","config":{"status":"stale","etag":"\"8f\""},"update":{"decision":"recommended""#), "\(text)")
        #expect(text.hasSuffix(#"{"app":"com.other.notes","config":{"status":"none","etag":null},"update":null}]}"#), "\(text)")
        let decoded = try JSONDecoder().decode(CheckInAnswer.self, from: Data(text.utf8))
        var expected = answer
        expected.apps[0].update = answer.apps[0].update.map(Self.sorted)
        #expect(decoded == expected)
        #expect(decoded.app("com.other.notes")?.config.status == CheckInAnswer.Config.Status.none)
        #expect(decoded.app("com.missing") == nil)

        let again = try JSONDecoder().decode(CheckInAnswer.self, from: JSONEncoder().encode(decoded))
        #expect(again == decoded)
    }

    @Test(arguments: [
        #"{"device":"d","receivedAt":"t","catalogGeneration":1,"apps":[{"app":"a","config":{"status":"error","etag":null},"update":null}]}"#,
        #"{"device":"d","receivedAt":"t","catalogGeneration":"1","apps":[]}"#,
        #"{"device":"d","receivedAt":"t","apps":[]}"#,
        #"[]"#,
    ])
    func documentsOfAnotherShapeDoNotDecode(_ text: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CheckInAnswer.self, from: Data(text.utf8)) }
    }

    /// The decision's text, written without making the value, is the value's text, for decisions with and without
    /// messages, reasons, skipped policies and traces; so is the check-in answer's that holds them.
    @Test func decisionTextIsTheValuesText() throws {
        let evaluator = try EvaluationTests.evaluator(EvaluationTests.deadlinePolicy)
        var decisions = [
            Decision.invalidRequest(RequestErrors(reasons: ["invalid_version", "unknown_field"]), evaluatedAt: Instant(seconds: 0))
        ]
        for now in ["2025-06-01T00:00:00Z", "2025-06-09T12:00:00Z", "2025-06-11T00:00:00Z"] {
            for explain in [false, true] {
                decisions.append(try EvaluationTests.decide(evaluator, ["now": now], explain: explain))
                decisions.append(try EvaluationTests.decide(evaluator, ["now": now, "version": "3.1"], explain: explain))
            }
        }
        var withMessage = decisions[1]
        withMessage.message = (locale: "de", title: "Bitte \"aktualisieren\"", body: nil)
        decisions.append(withMessage)
        for decision in decisions {
            for pretty in [true, false] {
                #expect(decision.jsonText(pretty: pretty) == decision.json.serializedBytes(pretty: pretty))
            }
        }
        #expect(decisions.contains { $0.trace != nil } && decisions.contains { !$0.skipped.isEmpty || !$0.reasons.isEmpty })

        // The server's answer, written with the decisions themselves, is the text of the value apps decode: with no
        // app, and with the decisions above, each beside an app the catalog does not serve.
        var answers = [CheckInAnswer.Decided(device: "d", receivedAt: "t", catalogGeneration: 0, apps: [])]
        for (index, decision) in decisions.enumerated() {
            answers.append(
                CheckInAnswer.Decided(
                    device: "iphone-\(index)", receivedAt: "2025-06-09T12:00:0\(index % 10)Z", catalogGeneration: index,
                    apps: [
                        .init(app: "com.acme.app", config: .init(status: .current, etag: "\"\(index)\""), decision: decision),
                        .init(app: "com.other.notes", config: .init(status: .none, etag: nil), decision: nil),
                    ]))
        }
        for answer in answers {
            for pretty in [true, false] {
                #expect(answer.jsonText(pretty: pretty) == answer.answer.json.serializedBytes(pretty: pretty))
            }
            #expect(try JSONDecoder().decode(CheckInAnswer.self, from: Data(answer.jsonText())).device == answer.device)
        }
    }
}
