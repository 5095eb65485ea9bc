// An app's launch, played on the command line: what an enterprise iOS app's start-up sequence does with
// MDMConfClient, printing what the app would show. See README.md beside this file.
import Foundation
import MDMConfClient
import PropertyList

let usage = """
    usage: field-app-launch --server URL --version V [--token T] [--device ID] [--app BUNDLE-ID]
                            [--platform ios] [--os-version V] [--locale L] [--time-zone Z]
                            [--cache DIR] [--timeout S] [--schema FILE --managed FILE]
    exit: 0 continue, 10 continue after the update nag, 20 update required, 30 OS too old, 69 refused, 64 usage
    """

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    guard name.hasPrefix("--"), let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data("\(usage)\n".utf8))
        exit(64)
    }
    options[String(name.dropFirst(2))] = value
}
guard let serverText = options["server"], let server = URL(string: serverText), let version = options["version"] else {
    FileHandle.standardError.write(Data("\(usage)\n".utf8))
    exit(64)
}
let app = options["app"] ?? "com.example.field"
let cache = URL(fileURLWithPath: options["cache"] ?? FileManager.default.temporaryDirectory.appendingPathComponent("field-app-cache").path)

// What the MDM pushed to the app (on a device: UserDefaults "com.apple.configuration.managed"), checked against
// the schema bundled with the app, so the check-in can say what is wrong with it.
var managed: ManagedConfiguration?
if let schemaPath = options["schema"], let managedPath = options["managed"] {
    let schema = ManagedConfiguration.schema(
        from: [UInt8](FileManager.default.contents(atPath: schemaPath) ?? Data()), name: schemaPath)
    let pushed = PropertyListReader().read([UInt8](FileManager.default.contents(atPath: managedPath) ?? Data()), file: managedPath)
    if let schema = schema.schema, let root = pushed.root {
        managed = ManagedConfiguration(value: root.value, schema: schema)
    }
}

let client = MDMConfClient(
    server: server, token: options["token"], app: app, cache: cache, device: options["device"],
    timeout: options["timeout"].flatMap(Double.init) ?? 5)
print("\(app) \(version) starting")
let launch = await client.launch(
    version: version, platform: options["platform"] ?? "ios", osVersion: options["os-version"],
    locale: options["locale"], timeZone: options["time-zone"], managedConfiguration: managed)

func age(_ seconds: Double) -> String {
    switch seconds {
    case ..<60: "\(Int(seconds)) s"
    case ..<3600: "\(Int(seconds / 60)) min"
    case ..<86400: "\(Int(seconds / 3600)) h"
    default: "\(Int(seconds / 86400)) d"
    }
}

if let problem = launch.problem { print("  ! \(problem)") }
if let generation = launch.catalogGeneration { print("  checked in (catalog generation \(generation))") }
if let configError = launch.configError { print("  reported configError: \(configError)") }
if let configuration = launch.configuration {
    let origin = configuration.source == .network
        ? "fetched now" : configuration.isCurrent ? "cached, still current" : "cached \(age(configuration.age)) ago, server not asked"
    print("  configuration \(configuration.etag) (\(origin))")
    if let url = configuration.string("ServerURL") { print("    ServerURL = \(url)") }
    if let minutes = configuration.integer("SyncIntervalMinutes") { print("    SyncIntervalMinutes = \(minutes)") }
    if let offline = configuration.bool("AllowOfflineMode") { print("    AllowOfflineMode = \(offline)") }
} else {
    print("  no configuration: running with the app's defaults")
}

if case .refused? = launch.problem {
    print("→ SIGN-IN ERROR: the app shows \"This device is not allowed to use \(app).\"")
    exit(69)
}
let update = launch.update
let when = update?.source == .cache ? " (decided \(age(update?.age ?? 0)) ago, offline)" : ""
let title = update?.message?.title ?? "A new version is available"
let body = update?.message?.body.map { "\n    \($0)" } ?? ""
let link = update?.updateURL.map { "\n    [Update] \($0.absoluteString)" } ?? ""
switch update?.decision {
case .ok?, nil:
    print("→ CONTINUE: the app opens\(when)")
    exit(0)
case .recommended?:
    let deadline = update?.deadline.map { " — required from \(PlistDate(secondsSince1970: $0.timeIntervalSince1970).iso8601)" } ?? ""
    print("→ NAG, then continue\(when): \"\(title)\"\(deadline)\(body)\(link)")
    exit(10)
case .required?:
    print("→ BLOCK\(when): \"\(title)\"\(body)\(link)")
    exit(20)
case .unsupported?:
    print("→ BLOCK\(when): this device's OS is too old for \(app)\(body)")
    exit(30)
}
