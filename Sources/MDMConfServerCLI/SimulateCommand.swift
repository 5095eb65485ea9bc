import ArgumentParser
import CivilTime
import FleetSimulation
import Foundation
import MDMConf
import MDMConfClientCore
import MDMConfCommandSupport
import MDMDiagnostics

struct SimulateCommand: ParsableCommand {
    static let configuration = ServerCommands.simulate

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Option(name: .long, help: "The server, e.g. http://127.0.0.1:8080.") var server: String
    @Option(name: .long, help: "The catalog folder the server serves.") var catalog: String
    @Option(name: .long, help: "How many devices (default: the whole inventory).") var devices: Int?
    @Flag(name: .customLong("generate-inventory"), help: "Write N simulated devices into the catalog's inventory.")
    var generateInventory = false
    @Option(name: .long, help: "Seconds to keep launching (default 0: every app of every device launches twice).")
    var duration: Double = 0
    @Option(name: .long, help: "Launches per second across the fleet (default: as fast as the server answers).")
    var rate: Double?
    @Option(
        name: .customLong("token-file"), help: "A file holding an admin token (needed when the catalog has tokens).")
    var tokenFile: String?
    @Option(name: .long, help: "Seconds each launch may take (the client's time limit).") var timeout: Double = 5
    @Option(
        name: .customLong("refresh-every"),
        help: "Every how many launches a device refreshes its configuration (0 never).")
    var refreshEvery = 2
    @Option(name: .long, help: "Seed of the drawn fleet.") var seed: UInt64 = 1
    @Option(name: .long, help: "text or json.") var format: Format = .text

    func validate() throws {
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--server must be an http or https URL, e.g. http://127.0.0.1:8080")
        }
        if let devices, devices < 1 || devices > 1_000_000 {
            throw ValidationError("--devices must be from 1 to 1000000")
        }
        if generateInventory && devices == nil { throw ValidationError("--generate-inventory needs --devices N") }
        guard duration >= 0, duration <= 86_400 else {
            throw ValidationError("--duration must be from 0 to 86400 seconds")
        }
        if let rate, !(rate > 0) { throw ValidationError("--rate must be above 0") }
        guard timeout > 0, timeout <= 300 else {
            throw ValidationError("--timeout must be above 0 and at most 300 seconds")
        }
        guard refreshEvery >= 0 else { throw ValidationError("--refresh-every must be 0 or more") }
    }

    func run() throws {
        let code = try BlockingTask.run { try await simulate() }
        if code != 0 { throw ExitCode(code) }
    }

    /// The progress line, rewritten in place on standard error.
    @Sendable static func progressLine(_ snapshot: SimulationStats.Snapshot) {
        let decisions = ["ok", "recommended", "required", "unsupported"]
            .map { "\($0) \(snapshot.decisions[$0, default: 0])" }.joined(separator: ", ")
        let rate = String(format: "%.0f", snapshot.perSecond)
        Console.error("\r\u{1B}[K\(snapshot.launches) launches (\(rate)/s): \(decisions); errors \(snapshot.errors)")
    }

    private func simulate() async throws -> Int32 {
        guard FileManager.default.fileExists(atPath: catalog) else {
            Console.error("error: \(catalog): no such catalog folder\n")
            return ExitStatus.unreadableInput.rawValue
        }
        guard let loaded = CatalogFolder.load(catalog) else {
            return ExitStatus.invalidConfiguration.rawValue
        }
        var token: String?
        if let tokenFile {
            guard let data = FileManager.default.contents(atPath: tokenFile) else {
                Console.error("error: \(tokenFile): cannot be read\n")
                return ExitStatus.unreadableInput.rawValue
            }
            token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if loaded.tokens != nil {
            guard let token else {
                Console.error(
                    "error: the catalog has tokens: give an admin token with --token-file (simulate names every device)\n"
                )
                return ExitStatus.usage.rawValue
            }
            guard case .admin? = loaded.scope(ofBearer: token) else {
                Console.error(
                    "error: the token in \(tokenFile ?? "") is not an admin token of this catalog (simulate names every device)\n"
                )
                return ExitStatus.usage.rawValue
            }
        }
        guard let serverURL = URL(string: server) else { return ExitStatus.usage.rawValue }  // checked in validate()

        var ids: [String]
        if generateInventory, let devices {
            let groups = Array(Set(loaded.apps.values.flatMap(\.variants))).sorted()
            do {
                ids = try GeneratedInventory.write(count: devices, catalog: catalog, groups: groups, seed: seed)
            } catch {
                Console.error("error: \(error)\n")
                return ExitStatus.invalidConfiguration.rawValue
            }
            if let app = loaded.appIDs.first {
                let transport = HTTPClientTransport()
                for device in [ids.first, ids.last].compactMap({ $0 }) {
                    let served = await GeneratedInventory.waitUntilServed(
                        device: device, app: app, server: serverURL, token: token, seconds: 30, transport: transport)
                    guard served else {
                        await transport.shutdown()
                        Console.error(
                            "error: \(server) did not serve \(device) within 30 s after devices.plist was written: serve the catalog with --watch or send the server SIGHUP, then run again\n"
                        )
                        return ExitStatus.findings.rawValue
                    }
                }
                await transport.shutdown()
            }
        } else {
            ids = loaded.deviceIDs
            if let devices {
                guard devices <= ids.count else {
                    Console.error(
                        "error: the inventory has \(ids.count) devices, not \(devices): add --generate-inventory to simulate more\n"
                    )
                    return ExitStatus.usage.rawValue
                }
                ids = Array(ids.prefix(devices))
            }
            guard !ids.isEmpty else {
                Console.error(
                    "error: the catalog has no inventory (devices.plist): use --devices N --generate-inventory\n")
                return ExitStatus.usage.rawValue
            }
        }

        let plans = FleetPlanner.plan(catalog: loaded, devices: ids, seed: seed, now: .now)
        let cacheRoot = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mdmconf-simulate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cacheRoot) }
        let options = SimulationOptions(
            server: serverURL, token: token, duration: duration, rate: rate, refreshEvery: refreshEvery,
            timeout: timeout,
            cacheRoot: cacheRoot)
        let showProgress = format == .text && isatty(2) != 0
        let progress: (@Sendable (SimulationStats.Snapshot) -> Void)? = showProgress ? Self.progressLine : nil
        let summary = await Simulator(options: options).run(plans, progress: progress)
        if showProgress { Console.error("\r\u{1B}[K") }
        switch format {
        case .json: Console.out(summary.json.serialized() + "\n")
        case .text: Console.out(summary.text)
        }
        return summary.errorCount == 0 ? 0 : ExitStatus.findings.rawValue
    }
}
