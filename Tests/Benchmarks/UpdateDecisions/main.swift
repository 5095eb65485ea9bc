import CivilTime
import Dispatch
import MDMDiagnostics
import PropertyList
import UpdatePolicy

// Decisions per second of the update-policy engine, in process, on a 20-policy document: on one core, then
// with one thread per core sharing one evaluator.
//
//   swift run -c release update-decisions-benchmark [COUNT]
//   swift run -c release update-decisions-benchmark --dump [POLICY…] > decisions.jsonl
//
// The document has 20 policies for one app (targeting, four rollouts, deadlines in a zone, blocked ranges,
// messages); the requests vary the version, OS, device and locale so that every path is taken. `--dump` prints
// decisions instead of timing them (see `dump`), e.g. with Tests/Benchmarks/every-feature-policy.plist.
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

/// `--dump [POLICY…]`: every decision, with and without `--explain`, of a fixed matrix of 4,000 requests against
/// the benchmark document and each given policy file, one JSON line each. Diff two builds' dumps to prove an
/// optimisation changed no decision.
func dump(_ files: [String]) {
    var documents = [document()]
    for file in files {
        guard case .bytes(let bytes)? = try? InputFile.read(file, limit: 1 << 26) else {
            fatalError("cannot read \(file)")
        }
        guard let loaded = PolicyLoader().load(bytes, file: file).document else { fatalError("\(file) does not load") }
        documents.append(loaded)
    }
    let apps = ["com.acme.app", "com.example.field", "com.example.scanner", "com.other"]
    let versions = [
        "1.0", "1.2.3", "1.3.2", "2.0", "2.3.0-beta.1", "2.3", "2.4.1", "2.4.2-rc.1", "3.0", "3.0.0-alpha", "0.9",
        "v2.1.0+77", "4.0", "2.9.9", "1.4.4", "2.6.1", "3.1.0-beta.2", "3.1.0-beta.10",
    ]
    let builds = [nil, "90", "100", "104", "120", "1.2.3"]
    let platforms = ["ios", "ipados", "android", "macos"]
    let oses = [nil, "14.0", "15.1", "16.0", "16.3 (a)", "17.4.1", "18.0", "12", "16.5"]
    let models = [nil, "iPhone13,2", "iPad7,11", "iPhone10,1", "IPHONE12,1"]
    let channels = [nil, "stable", "beta"]
    let locales = [nil, "de-AT", "fr", "en-US", "pt-BR", "de"]
    let zones = [nil, "America/New_York", "Europe/Berlin", "Asia/Kolkata"]
    let instants = [
        nil, "2025-03-09T07:29:59Z", "2025-06-01T00:00:00Z", "2026-01-01T08:59:59Z", "2026-01-01T09:00:00Z",
        "2026-03-29T01:30:00Z", "2026-06-01T12:00:00Z", "2026-11-21T12:00:00Z", "2027-01-01T00:00:00Z",
        "2026-05-31T07:00:00Z", "2026-06-15T09:00:00Z",
    ]
    let enrolments = [nil, "2026-05-25T00:00:00Z", "2026-11-01T00:00:00Z"]
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func pick<T>(_ list: [T]) -> T {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return list[Int((state >> 33) % UInt64(list.count))]
    }
    for (number, evaluator) in documents.map(Evaluator.init).enumerated() {
        for index in 0..<4_000 {
            var values = ["app": index % 5 == 0 ? pick(apps) : number == 0 ? "com.acme.app" : pick(apps)]
            values["version"] = pick(versions)
            values["platform"] = pick(platforms)
            let optional: [(String, String?)] = [
                ("build", pick(builds)), ("osVersion", pick(oses)), ("deviceModel", pick(models)),
                ("deviceId", pick([nil, "device-\(index % 97)", "  DEVICE-\(index % 13) "])),
                ("channel", pick(channels)), ("locale", pick(locales)), ("timeZone", pick(zones)),
                ("now", pick(instants)), ("deferralsUsed", pick(["0", "1", "2", "3", "5"])),
                ("enrolledAt", pick(enrolments)),
            ]
            for case (let key, let value?) in optional { values[key] = value }
            guard case .success(let request) = UpdateRequest.parse(values) else { fatalError("bad request \(values)") }
            for explain in [false, true] {
                let decision = evaluator.evaluate(request, now: Instant(seconds: 1_780_000_000), explain: explain)
                print(decision.json.serialized(pretty: false))
            }
        }
    }
}

if CommandLine.arguments.dropFirst().first == "--dump" {
    dump(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

/// The best of three rounds of `count` decisions on each of `threads` threads, as decisions per second of the
/// whole process. Each thread has its own requests (as a server's requests are its own); only the evaluator is
/// shared. Adds every exit code to `checksum`.
func measure(_ evaluator: Evaluator, threads: Int, count: Int, checksum: inout Int) -> Double {
    let now = Instant(seconds: 1_780_000_000)
    let inputs = (0..<threads).map { _ in requests() }
    // One slot per thread, each written by its own thread only.
    nonisolated(unsafe) let sums = UnsafeMutableBufferPointer<Int>.allocate(capacity: threads)
    defer { sums.deallocate() }
    sums.initialize(repeating: 0)
    var best = 0.0
    for _ in 0..<3 {
        let start = seconds()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var sum = 0
            for index in 0..<count { sum &+= Int(evaluator.evaluate(inputs[thread][index & 63], now: now).exitCode) }
            sums[thread] &+= sum
        }
        best = max(best, Double(count * threads) / (seconds() - start))
    }
    checksum = sums.reduce(checksum, &+)
    return best
}

func main() {
    let evaluator = Evaluator(document())
    let now = Instant(seconds: 1_780_000_000)
    let count = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 2_000_000
    var checksum = 0
    // Warm up, then measure on one core, then on every core.
    for request in requests() { checksum &+= Int(evaluator.evaluate(request, now: now).exitCode) }
    let one = measure(evaluator, threads: 1, count: count, checksum: &checksum)
    print("update decisions: \(Int(one)) per second (20 policies, 1 core) [checksum \(checksum)]")
    let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    if cores > 1 {
        var all = 0
        let rate = measure(evaluator, threads: cores, count: count, checksum: &all)
        print("update decisions: \(Int(rate)) per second (20 policies, \(cores) threads on \(cores) cores)")
    }
}

main()
