import CivilTime
import UpdatePolicy

// Decisions per second of the update-policy engine, in process, on a 20-policy document.
//
//   swift run -c release update-decisions-benchmark
//
// The document has 20 policies for one app (targeting, a rollout, deadlines in a zone, blocked ranges,
// messages); the requests vary the version, OS, device and locale so that every path is taken.
#if canImport(Glibc)
    import Glibc
#endif

func document() -> PolicyDocument {
    var policies = ""
    for index in 0..<20 {
        let minor = index % 7
        var body = "<key>id</key><string>p\(index)</string><key>app</key><string>com.acme.app</string>"
        switch index % 5 {
        case 0:
            body +=
                "<key>minVersion</key><string>2.\(minor)</string><key>deadline</key><string>2026-0\(1 + index % 9)-01T09:00:00</string><key>maxDeferrals</key><integer>3</integer>"
        case 1:
            body +=
                "<key>blockedVersions</key><array><string>&gt;=1.\(minor).0 &lt;1.\(minor).5</string></array><key>latestVersion</key><string>3.0</string>"
        case 2:
            body +=
                "<key>recommendedVersion</key><string>2.\(minor).1</string><key>rollout</key><dict><key>percent</key><string>\(10 + index)</string></dict>"
        case 3:
            body +=
                "<key>minVersion</key><string>1.\(minor)</string><key>platforms</key><array><string>ios</string><string>ipados</string></array><key>osVersion</key><string>&gt;=15 &lt;18</string><key>requiresOS</key><string>16.\(minor)</string>"
        default:
            body +=
                "<key>minBuild</key><string>\(100 + index)</string><key>onIndeterminate</key><string>ok</string><key>deviceModels</key><array><string>iPhone1\(minor),*</string></array>"
        }
        body +=
            "<key>messages</key><dict><key>en</key><dict><key>title</key><string>Update</string></dict><key>de</key><dict><key>title</key><string>Aktualisieren</string></dict></dict>"
        policies += "<dict>\(body)</dict>"
    }
    let text =
        "<plist><dict><key>schemaVersion</key><integer>1</integer><key>defaults</key><dict><key>timeZone</key><string>Europe/Berlin</string><key>locale</key><string>en</string></dict><key>policies</key><array>\(policies)</array></dict></plist>"
    let loaded = PolicyLoader().load(Array(text.utf8), file: "bench.plist")
    guard let document = loaded.document else {
        fatalError("benchmark document does not load: \(loaded.diagnostics.map(\.message))")
    }
    return document
}

func requests() -> [UpdateRequest] {
    var result: [UpdateRequest] = []
    for index in 0..<64 {
        let values = [
            "app": "com.acme.app", "version": "\(1 + index % 3).\(index % 7).\(index % 4)",
            "platform": index % 4 == 0 ? "android" : "ios",
            "osVersion": "\(14 + index % 5).\(index % 3)", "deviceModel": "iPhone1\(index % 7),\(index % 3)",
            "deviceId": "device-\(index)",
            "locale": index % 2 == 0 ? "de-AT" : "fr", "build": "\(95 + index % 30)", "deferralsUsed": "\(index % 5)",
        ]
        if case .success(let request) = UpdateRequest.parse(values) { result.append(request) }
    }
    return result
}

func seconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

let evaluator = Evaluator(document())
let inputs = requests()
let now = Instant(seconds: 1_780_000_000)
var checksum = 0
// Warm up, then measure three rounds of 2 million decisions and report the best.
for request in inputs { checksum &+= Int(evaluator.evaluate(request, now: now).exitCode) }
var best = 0.0
for _ in 0..<3 {
    let count = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 2_000_000
    let start = seconds()
    for index in 0..<count { checksum &+= Int(evaluator.evaluate(inputs[index & 63], now: now).exitCode) }
    best = max(best, Double(count) / (seconds() - start))
}
print("update decisions: \(Int(best)) per second (20 policies, 1 core) [checksum \(checksum)]")
