import Foundation
import MDMConfClientCore
import PropertyList

/// `--generate-inventory`: N simulated devices (`sim-00001`, …) written into the catalog's `devices.plist`
/// beside the real ones, for a server that reloads the catalog to learn.
public enum GeneratedInventory {
    public static let prefix = "sim-"

    public static func ids(count: Int) -> [String] {
        (1...max(count, 1)).prefix(count).map {
            "\(prefix)\(String(repeating: "0", count: max(0, 5 - String($0).count)))\($0)"
        }
    }

    /// Rewrites `<catalog>/devices.plist` with its real devices unchanged (in their order; comments are not
    /// kept) and `count` generated ones after them, replacing those of an earlier run. Each generated device
    /// has the attributes MDM variables use and, for most, one of `groups`. The file is replaced atomically.
    public static func write(count: Int, catalog: String, groups: [String], seed: UInt64) throws -> [String] {
        let path = (catalog as NSString).appendingPathComponent("devices.plist")
        var entries: [PlistDictionary.Entry] = []
        if FileManager.default.fileExists(atPath: path) {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let document = PropertyListReader().read(bytes, file: path)
            guard !document.hasErrors, case .dictionary(let existing)? = document.root?.value else {
                throw InventoryError(message: "\(path) is not a readable inventory; fix it with `mdmconf lint` first")
            }
            entries = existing.entries.filter { !$0.key.hasPrefix(prefix) }
        }
        var random = SplitMix(seed: seed)
        let ids = ids(count: count)
        for (index, id) in ids.enumerated() {
            let number = index + 1
            var attributes: [PlistDictionary.Entry] = [
                .init(key: "udid", value: PlistNode(.string(String(format: "00008110-%016llX", random.next() >> 1)))),
                .init(key: "serialNumber", value: PlistNode(.string(String(format: "SIM%09d", number)))),
                .init(key: "email", value: PlistNode(.string("\(id)@example.com"))),
                .init(key: "username", value: PlistNode(.string(id))),
                .init(key: "deviceName", value: PlistNode(.string("Simulated device \(number)"))),
            ]
            if !groups.isEmpty, random.next() % 4 != 0 {
                let group = groups[Int(random.next() % UInt64(groups.count))]
                attributes.append(.init(key: "groups", value: PlistNode(.array([PlistNode(.string(group))]))))
            }
            entries.append(.init(key: id, value: PlistNode(.dictionary(PlistDictionary(attributes)))))
        }
        let xml = try PlistWriter.xml(.dictionary(PlistDictionary(entries)))
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        return ids
    }

    /// Waits until the server serves `device` (it answers 404 for a device it does not know yet), polling every
    /// 200 ms for up to `seconds`. False when it never did.
    public static func waitUntilServed(
        device: String, app: String, server: URL, token: String?, seconds: Double, transport: any ClientTransport
    ) async -> Bool {
        var base = server.absoluteString
        if !base.hasSuffix("/") { base += "/" }
        guard let url = URL(string: "\(base)v1/apps/\(app)/config?device=\(device)") else { return false }
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        var headers: [String: String] = [:]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        while ContinuousClock.now < deadline {
            if let response = try? await transport.send(
                ClientRequest(method: "GET", url: url, headers: headers), timeout: 5),
                response.status == 200
            {
                return true
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return false
    }
}

public struct InventoryError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
