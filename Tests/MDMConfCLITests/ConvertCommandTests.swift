import Foundation
import PropertyList
import Testing

struct ConvertCommandTests {
    @Test func toJSON() throws {
        let result = try CLIProcess.run(["convert", "Examples/app/configs/com.example.field.plist", "--to", "json"])
        #expect(result.status == 0)
        let json = try CLIProcess.json(result.stdout)
        #expect(json["ServerPort"] as? Int == 8443)
        #expect(json["AllowOfflineMode"] as? Bool == true)
        #expect(json["LicenseExpiry"] as? String == "2027-06-30T00:00:00Z")
        #expect(json["AllowedRegions"] as? [String] == ["EU", "US"])
        #expect(result.stdout.hasPrefix("{\n  \"ServerURL\""), "key order is kept")
    }

    @Test func toXMLIsCanonicalAndStable() throws {
        let first = try CLIProcess.run(["convert", "Examples/broken/key-with-newline.plist", "--to", "xml"])
        #expect(first.status == 1, "a file with errors is not converted")
        #expect(first.stdout == "")
        let xml = try CLIProcess.run(["convert", "Examples/app/configs/com.example.field.plist", "--to", "xml"])
        #expect(xml.status == 0)
        #expect(xml.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC"))
        let again = try CLIProcess.run(["convert", "-", "--to", "xml"], stdin: xml.stdout)
        #expect(again.stdout == xml.stdout, "canonical output is a fixed point")
    }

    @Test func jsonBackToXMLKeepsTheValue() throws {
        let json = try CLIProcess.run(
            ["convert", "-", "--to", "json"],
            stdin:
                "<dict><key>n</key><integer>-9223372036854775808</integer><key>r</key><real>1e300</real><key>s</key><string>a&amp;b</string></dict>"
        )
        #expect(json.status == 0)
        let xml = try CLIProcess.run(["convert", "-", "--to", "xml"], stdin: json.stdout)
        #expect(xml.status == 0)
        let value = PropertyListReader().read(Array(xml.stdout.utf8), file: "x").root?.value
        #expect(value == ["n": .integer(.min), "r": 1e300, "s": "a&b"])
    }

    @Test func errorsGoToStandardErrorAndNothingIsWritten() throws {
        let result = try CLIProcess.run(["convert", "Examples/broken/bad-values.plist", "--to", "json"])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr.contains(
                "Examples/broken/bad-values.plist:6:2: error: invalid integer '84 43' [MC1015 invalid-integer]"))
    }

    @Test func stringsXMLCannotCarryAreRefused() throws {
        let result = try CLIProcess.run(["convert", "-", "--to", "xml"], stdin: #"{"Name": "bell\u0007"}"#)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.contains("MC1041 unrepresentable-string"))
        #expect(result.stderr.contains("key path: Name"))
    }

    @Test func missingInputAndUsage() throws {
        #expect(try CLIProcess.run(["convert", "nope.plist", "--to", "json"]).status == 66)
        #expect(try CLIProcess.run(["convert", "Examples/app/configs/com.example.field.plist"]).status == 64)
        #expect(
            try CLIProcess.run(["convert", "Examples/app/configs/com.example.field.plist", "--to", "yaml"]).status == 64
        )
    }
}
