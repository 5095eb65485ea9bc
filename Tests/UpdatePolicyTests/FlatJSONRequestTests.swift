import MDMDiagnostics
import PropertyList
import Testing
import UpdatePolicy

/// The request read straight from a flat JSON body is the request (or the reasons) the JSON reader's node gives,
/// and every other body is left to the reader.
struct FlatJSONRequestTests {
    /// What a parse decided, field by field.
    static func summary(_ parsed: Result<UpdateRequest, RequestErrors>) -> String {
        switch parsed {
        case .failure(let errors): return "errors: " + errors.reasons.joined(separator: ",")
        case .success(let request):
            let fields: [String?] = [
                request.app, request.version.description, request.build?.description, request.platform,
                request.osVersion?.description, request.deviceModel, request.deviceID, request.channel,
                request.locale?.description, request.timeZone?.name, request.now?.description,
                String(request.deferralsUsed), request.enrolledAt?.description,
            ]
            return fields.map { $0 ?? "-" }.joined(separator: "|")
        }
    }

    /// The general reader's answer, or nil when it finds the body is not JSON.
    static func general(_ body: [UInt8]) -> String? {
        let document = JSONPlistReader(nullMembersAreAbsent: true).read(body, file: "body")
        guard !document.hasErrors, let root = document.root else { return nil }
        return summary(UpdateRequest.parse(root))
    }

    static let typical =
        #"{"app": "com.example.field", "version": "3.0.2", "platform": "ios", "osVersion": "17.4", "deviceId": "ipad-0042"}"#

    @Test(arguments: [
        typical,
        #"{"app":"com.example.field","version":"3.0.2","platform":"iOS","deferralsUsed":2,"timeZone":"Europe/Berlin","locale":"de-DE"}"#,
        "{\n  \"app\" : \"a.b\",\r\n\t\"version\" : \" 1.0 \", \"platform\": \"android\", \"build\": \"12\" }\n",
        #"{"app": "a.b", "version": "1.0", "platform": "ios", "deferralsUsed": -3}"#,
        #"{"app": "a.b", "version": "1.0", "platform": "ios", "deferralsUsed": "3"}"#,
        #"{"app": "a.b", "version": "1.0", "platform": "ios", "osVersion": 17}"#,
        #"{"app": "a.b", "version": "1.0", "platform": "ios", "osVersion": null, "channel": "beta"}"#,
        #"{"app": "a.b", "version": "1.0", "platform": "ios", "color": "red", "x-trace": 5}"#,
        #"{"app": "", "version": "one", "platform": "i o s", "enrolledAt": "yesterday", "now": "2026-01-01T00:00:00Z"}"#,
        #"{}"#,
    ])
    func flatBodiesAreReadAsTheReaderReadsThem(_ body: String) throws {
        let flat = try #require(UpdateRequest.parse(flatJSON: Array(body.utf8)), "a flat body is read")
        #expect(Self.summary(flat) == Self.general(Array(body.utf8)))
        // Straight from the connection's memory, as the server's front path reads it.
        let fromRaw = Array(body.utf8).withUnsafeBytes { UpdateRequest.parse(flatJSON: $0) }
        #expect(fromRaw.map(Self.summary) == Self.summary(flat))
    }

    @Test(arguments: [
        #"{"app": "a.b", "app": "c.d", "version": "1.0", "platform": "ios"}"#,
        #"{"app": "a\u002eb", "version": "1.0", "platform": "ios"}"#,
        #"{"app": "a.b", "version": "1.0", "platform": "iös"}"#,
        #"{"app": "a.b", "version": "1.0", "platform": "ios", "extra": {"nested": true}}"#,
        #"{"app": "a.b", "version": "1.0", "platform": "ios", "flag": true}"#,
        #"{"app": "a.b", "version": "1.0", "platform": "ios"} trailing"#,
        #"{"app": "a.b", "version": "1.0", "platform": "ios",}"#,
        #"{"app": "a.b", "deferralsUsed": 007}"#, #"{"deferralsUsed": -0}"#, #"{"deferralsUsed": 1.5}"#,
        #"{"deferralsUsed": 1234567890123456789}"#, #"{"deferralsUsed": 1e3}"#, #"["app"]"#, "", "{", #"{"app" "a"}"#,
    ])
    func otherBodiesAreLeftToTheReader(_ body: String) {
        #expect(UpdateRequest.parse(flatJSON: Array(body.utf8)) == nil)
    }

    /// Thousands of bodies made by cutting, doubling and changing bytes of a typical one: whatever the flat
    /// reading takes, the JSON reader takes too, with the same outcome.
    @Test func mutatedBodiesAgreeWithTheReader() {
        var generator = Congruential(seed: 0x5EED)
        let alphabet = Array(#"{}[]":, 0123456789-.eE\nulltrueaxyz/é"#.utf8)
        var taken = 0
        for _ in 0..<20_000 {
            var body = Array(Self.typical.utf8)
            for _ in 0...Int(generator.next() % 3) {
                let at = Int(generator.next() % UInt64(body.count))
                switch generator.next() % 3 {
                case 0: body.remove(at: at)
                case 1: body.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: at)
                default: body[at] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                }
                if body.isEmpty { break }
            }
            guard let flat = UpdateRequest.parse(flatJSON: body) else { continue }
            taken += 1
            #expect(Self.general(body) == Self.summary(flat), "\(String(decoding: body, as: UTF8.self))")
        }
        #expect(taken > 1_000, "the flat reading takes most small changes inside strings: \(taken)")
    }
}

/// A small seeded generator (Knuth's MMIX linear congruential one), so every run makes the same bodies.
struct Congruential {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 17
    }
}
