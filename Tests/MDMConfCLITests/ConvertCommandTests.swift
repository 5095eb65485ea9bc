import Foundation
import PropertyList
import TestScratch
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

    /// CPython's invalid binary plists with a date of NaN or ±infinity seconds, and one too large for a year of four
    /// digits: once a crash while writing `<date>`, now an error at read time and nothing written.
    @Test(arguments: [0x7FF8, 0x7FF0, 0xFFF0, 0x42E0] as [UInt16])
    func datesNoWriterCanExpressAreRefused(_ high: UInt16) throws {
        let bytes: [UInt8] =
            [0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30]  // bplist00
            + [0x33, UInt8(high >> 8), UInt8(high & 0xFF), 0, 0, 0, 0, 0, 0]  // the date object at offset 8
            + [0x08]  // offset table
            + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 0x11]
        let path = Scratch.url("date-\(high).bplist").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        for format in ["xml", "json"] {
            let result = try CLIProcess.run(["convert", path, "--to", format])
            #expect(result.status == 1, "\(format): \(result.stderr)")
            #expect(result.stdout == "")
            #expect(result.stderr.contains("outside the years 1 to 9999"), "\(result.stderr)")
        }
        let validated = try CLIProcess.run(["validate", path, "--schema", "Examples/app/schema.xml", "--format", "json"])
        #expect(validated.status == 1)
        #expect(validated.stdout.contains("outside the years 1 to 9999"))
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
