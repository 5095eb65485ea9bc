import Foundation
import TestScratch
import Testing

/// A schema library on the search path: `schema list`, `schema find`, and its on-disk index, which must follow
/// changes to the files (size and modification time) and never serve a stale id.
@Suite(.serialized) struct SchemaLibraryTests {
    static let corpus = CLIProcess.packageRoot.deletingLastPathComponent().appendingPathComponent(
        "shared/corpus/manifests")

    static func library() throws -> URL {
        let folder = Scratch.url(
            "mdmconf-library-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("Apps"), withIntermediateDirectories: true)
        for name in [
            "ProfileManifests_ManagedPreferencesApplications_com.google.Chrome.plist",
            "ProfileManifests_ManagedPreferencesApplications_com.github.macadmins.Nudge.plist",
        ] {
            try FileManager.default.copyItem(
                at: corpus.appendingPathComponent(name), to: folder.appendingPathComponent("Apps/\(name)"))
        }
        try FileManager.default.copyItem(
            at: CLIProcess.packageRoot.appendingPathComponent("Examples/app/schema.xml"),
            to: folder.appendingPathComponent("field.xml"))
        return folder
    }

    @Test func listFindAndAnIndexThatFollowsChanges() throws {
        let library = try Self.library()
        let cache = Scratch.url("mdmconf-cache-\(UUID().uuidString)")
        let env = ["XDG_CACHE_HOME": cache.path]

        let list = try CLIProcess.run(["schema", "list", "--path", library.path], environment: env)
        #expect(list.status == 0, "\(list.stderr)")
        for id in ["com.google.Chrome", "com.github.macadmins.Nudge", "com.example.field"] {
            #expect(list.stdout.contains(id), "\(list.stdout)")
        }
        #expect(list.stderr.contains("3 ids in 3 schema files"))
        let index = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("mdmconf").path)
        #expect(index.count == 1 && index[0].hasPrefix("schema-index-"), "\(index)")

        let found = try CLIProcess.run(
            ["schema", "find", "com.google.Chrome", "--path", library.path], environment: env)
        #expect(
            found.status == 0 && found.stdout.hasSuffix("com.google.Chrome.plist\n"), "\(found.stdout)\(found.stderr)")
        let missing = try CLIProcess.run(
            ["schema", "find", "com.example.nothing", "--path", library.path], environment: env)
        #expect(missing.status == 1 && missing.stderr.contains("no schema on the search path declares"))

        // A file whose declared id changes is read again: the index never answers with the old id.
        let nudge = library.appendingPathComponent(
            "Apps/ProfileManifests_ManagedPreferencesApplications_com.github.macadmins.Nudge.plist")
        let text = try String(contentsOf: nudge, encoding: .utf8)
        try text.replacingOccurrences(
            of: "<string>com.github.macadmins.Nudge</string>",
            with: "<string>com.github.macadmins.NudgeRenamed</string>"
        ).write(to: nudge, atomically: true, encoding: .utf8)
        let old = try CLIProcess.run(
            ["schema", "find", "com.github.macadmins.Nudge", "--path", library.path], environment: env)
        #expect(old.status == 1, "\(old.stdout)")
        let renamed = try CLIProcess.run(
            ["schema", "find", "com.github.macadmins.NudgeRenamed", "--path", library.path], environment: env)
        #expect(renamed.status == 0, "\(renamed.stderr)")

        // A removed file leaves the index; a shadowing copy is reported.
        try FileManager.default.copyItem(
            at: library.appendingPathComponent("field.xml"), to: library.appendingPathComponent("Apps/field-copy.xml"))
        let shadowed = try CLIProcess.run(
            ["schema", "find", "com.example.field", "--path", library.path], environment: env)
        #expect(shadowed.status == 0 && shadowed.stderr.contains("shadowed:"), "\(shadowed.stderr)")
        try FileManager.default.removeItem(at: library.appendingPathComponent("field.xml"))
        let moved = try CLIProcess.run(
            ["schema", "find", "com.example.field", "--path", library.path], environment: env)
        #expect(moved.stdout.hasSuffix("field-copy.xml\n"), "\(moved.stdout)")
    }

    /// `validate` trusts the index without a `stat` per file while no folder of the library changed; a file edited
    /// in place (its folder unchanged) must still never be served under the id it no longer declares, and an id it
    /// comes to declare must be found.
    @Test func validateFollowsSchemasEditedInPlace() throws {
        let library = try Self.library()
        let cache = Scratch.url("mdmconf-cache-\(UUID().uuidString)")
        let env = ["XDG_CACHE_HOME": cache.path, "MDMCONF_SCHEMA_PATH": library.path]
        let config = try CLIProcess.temporaryFile(
            "com.google.Chrome.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>HomepageLocation</key><string>https://intranet.example.com</string>
            <key>HomepageIsNewTabPage</key><string>yes</string></dict></plist>
            """)
        func validate() throws -> String {
            let result = try CLIProcess.run(["validate", config, "--format", "json"], environment: env)
            #expect(result.status <= 1, "\(result.stderr)")
            return result.stdout
        }
        // Cold (the index is written, with the folders walked), then warm from the index alone: the same answer.
        let cold = try validate()
        #expect(cold.contains("com.google.Chrome.plist") && cold.contains("must be a boolean"), "\(cold)")
        #expect(try validate() == cold)

        // Chrome's manifest edited in place to declare another domain: nothing declares com.google.Chrome now.
        func edit(_ name: String, from old: String, to new: String) throws {
            let file = library.appendingPathComponent("Apps/ProfileManifests_ManagedPreferencesApplications_\(name)")
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains(old))
            try text.replacingOccurrences(of: old, with: new).write(to: file, atomically: false, encoding: .utf8)
        }
        try edit(
            "com.google.Chrome.plist", from: "<string>com.google.Chrome</string>",
            to: "<string>com.google.ChromeRenamed</string>")
        let renamed = try validate()
        #expect(renamed.contains("no schema found for 'com.google.Chrome'"), "\(renamed)")
        #expect(!renamed.contains("must be a boolean"), "\(renamed)")

        // Nudge's manifest edited in place to declare com.google.Chrome: the lookup that finds nothing walks the
        // library again and finds it.
        try edit(
            "com.github.macadmins.Nudge.plist", from: "<string>com.github.macadmins.Nudge</string>",
            to: "<string>com.google.Chrome</string>")
        let nudge = try validate()
        #expect(nudge.contains("com.github.macadmins.Nudge.plist"), "\(nudge)")
        #expect(!nudge.contains("no schema found"), "\(nudge)")
        #expect(try validate() == nudge)
    }

    /// `validate` finds a configuration's manifest by its preference domain on MDMCONF_SCHEMA_PATH.
    @Test func validateFindsTheManifestByDomain() throws {
        let library = try Self.library()
        let config = try CLIProcess.temporaryFile(
            "com.google.Chrome.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>HomepageLocation</key><string>https://intranet.example.com</string>
            <key>HomepageIsNewTabPage</key><string>yes</string></dict></plist>
            """)
        let result = try CLIProcess.run(["validate", config], environment: ["MDMCONF_SCHEMA_PATH": library.path])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("'HomepageIsNewTabPage' must be a boolean"), "\(result.stdout)")
    }
}
