import ConfigSchema
import Foundation
import MDMConf
import Testing

/// Where the corpus copy of `apple/device-management` is, beside the project.
private let appleRepository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
        "shared/corpus/apple-device-management"
    ).path

/// A checkout of `apple/device-management` on the schema search path: its profile and declaration schemas are
/// found by `payloadtype` / `declarationtype`; commands, status items and error responses are not ids to look up.
@Suite(
    .enabled(
        if: FileManager.default.fileExists(atPath: appleRepository),
        "corpus not found beside the project"))
struct AppleSchemaDiscoveryTests {
    static let repository = appleRepository

    @Test func aCheckoutIsIndexedByPayloadAndDeclarationType() throws {
        let discovery = SchemaDiscovery(folders: [Self.repository])
        let candidates = discovery.candidates()
        let ids = Dictionary(candidates.map { ($0.id, $0.path) }) { first, _ in first }
        #expect(ids["com.apple.wifi.managed"]?.hasSuffix("mdm/profiles/com.apple.wifi.managed.yaml") == true)
        #expect(
            ids["com.apple.configuration.passcode.settings"]?.hasSuffix(
                "declarative/declarations/configurations/passcode.settings.yaml") == true)
        #expect(ids["DeviceInformation"] == nil, "commands are not schemas of a configuration")
        // The 128 profile payloads and the 39 files with a `declarationtype` (38 declarations and the base every
        // declaration shares); `other/` holds 5 more profile payloads, credentials have a `credentialtype`.
        let profiles = candidates.filter { $0.path.contains("/mdm/profiles/") }.count
        let declarations = candidates.filter { $0.path.contains("/declarative/declarations/") }.count
        #expect(profiles == 128 && declarations == 39, "\(profiles) profiles, \(declarations) declarations")
        let found = try #require(discovery.find("com.apple.wifi.managed", in: candidates))
        #expect(found.shadowed.isEmpty)
    }

    /// The corpus's ProfileManifests describe some of Apple's payload types too. With no `source`, Apple's YAML is the
    /// schema in either order and the first manifest gives hints; a `source` picks one kind, alone.
    @Test(
        arguments: [
            (true, nil, "yaml", "plist"), (false, nil, "yaml", "plist"), (true, .apple, "yaml", nil),
            (false, .manifest, "plist", nil), (true, .manifest, "plist", nil),
        ] as [(Bool, SchemaDiscovery.SchemaSource?, String, String?)])
    func appleAndAManifestOfOneType(
        manifestsFirst: Bool, source: SchemaDiscovery.SchemaSource?, schema: String, hints: String?
    )
        throws
    {
        let manifests = URL(fileURLWithPath: Self.repository).deletingLastPathComponent()
            .appendingPathComponent("manifests").path
        var discovery = SchemaDiscovery(
            folders: manifestsFirst ? [manifests, Self.repository] : [Self.repository, manifests])
        discovery.source = source
        let found = try #require(discovery.find("com.apple.wifi.managed", in: discovery.candidates()))
        #expect(found.schema.path.hasSuffix(schema))
        #expect(found.hints.map { String($0.path.split(separator: ".").last ?? "") } == hints)
        #expect(found.shadowed.count == (hints == nil ? 1 : 0))
        // Two manifests of the restrictions payload (iOS and macOS): the first gives hints, the second is unused.
        let restrictions = try #require(discovery.find("com.apple.applicationaccess", in: discovery.candidates()))
        #expect(restrictions.shadowed.count == (hints == nil ? 2 : 1))
    }
}
