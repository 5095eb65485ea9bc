import ArgumentParser
import Foundation
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics
import PropertyList

struct DDMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ddm",
        abstract: "The declarative channel: a catalog's configurations as DDM declarations and assets.",
        subcommands: [Export.self]
    )

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write each device's declaration set: app.managed declarations, data assets, an activation.",
            discussion: """
                For each device of the inventory (or each --device), writes OUT/DEVICE/ with declarations/*.json \
                (a com.apple.configuration.app.managed per app, whose AppConfig.DataAssetReference names a \
                com.apple.asset.data, and a com.apple.activation.simple), assets/SHA256.plist (the device's \
                configuration exactly as GET /v1/apps/{app}/config serves it), tokens.json and \
                declaration-items.json. Identifiers are stable; a ServerToken changes exactly when its \
                declaration does. Every set is checked against Apple's schemas (the project's own first, then \
                MDMCONF_SCHEMA_PATH) before anything is written: a set with an error is refused and nothing is \
                written. Exit codes: 0 written, 1 a set has errors, 64 usage error (a base URL that is not https, \
                an unknown device), 66 unreadable catalog, 78 unusable catalog.
                """
        )

        @Argument(help: "The catalog folder.") var catalog: String

        @Option(name: .long, help: ArgumentHelp("The folder to write the sets into.", valueName: "dir")) var out: String

        @Option(
            name: .customLong("base-url"),
            help: ArgumentHelp("The server's https URL; assets are served below it.", valueName: "url"))
        var baseURL: String

        @Option(name: .long, help: ArgumentHelp("A device of the inventory (repeatable; default: all).", valueName: "id"))
        var device: [String] = []

        @Option(
            name: .long,
            help: ArgumentHelp("The tokens' Timestamp (RFC 3339; default: now).", valueName: "time"))
        var timestamp: String?

        @OptionGroup var report: ReportOptions

        func validate() throws {
            guard let url = URL(string: baseURL), url.scheme == "https", let host = url.host, !host.isEmpty,
                url.query == nil, url.fragment == nil
            else {
                throw ValidationError("--base-url must be an https URL (https://host[:port][/path]): devices fetch assets over TLS")
            }
            if let timestamp, PlistDate(iso8601: timestamp) == nil {
                throw ValidationError("--timestamp must be an RFC 3339 time such as 2026-11-26T09:00:00Z")
            }
        }

        func run() throws {
            guard InputPaths.isDirectory(catalog) else {
                Console.error("error: \(catalog) is not a folder\n")
                throw ExitStatus.unreadableInput.exitCode
            }
            let loaded: Catalog
            switch CatalogLoader().load(catalog) {
            case .success(let catalog): loaded = catalog
            case .failure(let failure):
                let files = Dictionary(grouping: failure.errors) { $0.location?.file ?? catalog }
                report.settings.print(
                    DiagnosticReport(files: files.keys.sorted().map { FileReport(path: $0, diagnostics: files[$0]!) }),
                    sources: failure.sources.mapValues { SourceText($0) })
                throw ExitStatus.invalidConfiguration.exitCode
            }
            // DDM is Apple's channel: the inventory's Android devices have no set.
            let devices = device.isEmpty ? loaded.devices.keys.sorted().filter { loaded.devices[$0]?.platform != .android } : device
            for id in devices {
                guard let known = loaded.devices[id] else {
                    Console.error("error: no device '\(id)' in \(catalog)/devices.plist\n")
                    throw ExitStatus.usage.exitCode
                }
                if known.platform == .android {
                    Console.error("error: '\(id)' is an Android device; declarative management is Apple's channel\n")
                    throw ExitStatus.usage.exitCode
                }
            }
            if devices.isEmpty {
                Console.error("error: \(catalog) has no devices in devices.plist; sets are made per device\n")
                throw ExitStatus.usage.exitCode
            }
            let exporter = DDMExporter(baseURL: baseURL, timestamp: timestamp ?? PlistDate(secondsSince1970: Date().timeIntervalSince1970.rounded(.down)).iso8601)
            let discovery = DDMExporter.discovery()
            let sets = devices.map { exporter.set(for: $0, catalog: loaded) }
            let checked = sets.flatMap { DDMExporter.check($0, discovery: discovery) }
            let findings = DiagnosticReport(files: checked.map(\.report))
            if checked.contains(where: { $0.report.diagnostics.contains { $0.severity != .info } }) {
                report.settings.print(findings, sources: checked.sources)
            }
            if findings.files.contains(where: { !$0.isValid }) { throw ExitStatus.findings.exitCode }
            do {
                for set in sets { try write(set) }
            } catch {
                Console.error("error: cannot write \(out): \(error)\n")
                throw ExitStatus.unreadableInput.exitCode
            }
            let declarations = sets.reduce(0) { $0 + $1.declarations.count }
            Console.error("\(sets.count) device sets written to \(out): \(declarations) declarations\n")
        }

        /// One device's folder, replaced as a whole: written beside it, then moved into place.
        private func write(_ set: DDMDeviceSet) throws {
            let manager = FileManager.default
            let root = URL(fileURLWithPath: out)
            try manager.createDirectory(at: root, withIntermediateDirectories: true)
            let staging = root.appendingPathComponent(".\(set.device).partial")
            try? manager.removeItem(at: staging)
            try manager.createDirectory(
                at: staging.appendingPathComponent("declarations"), withIntermediateDirectories: true)
            try manager.createDirectory(at: staging.appendingPathComponent("assets"), withIntermediateDirectories: true)
            for declaration in set.declarations {
                try Data(declaration.json.utf8).write(
                    to: staging.appendingPathComponent("declarations/\(declaration.fileName)"))
            }
            for asset in set.assets {
                try Data(asset.bytes).write(to: staging.appendingPathComponent("assets/\(asset.sha256).plist"))
            }
            try Data(set.tokensJSON.utf8).write(to: staging.appendingPathComponent("tokens.json"))
            try Data(set.declarationItemsJSON.utf8).write(to: staging.appendingPathComponent("declaration-items.json"))
            let target = root.appendingPathComponent(set.device)
            try? manager.removeItem(at: target)
            try manager.moveItem(at: staging, to: target)
        }
    }
}
