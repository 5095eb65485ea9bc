import Testing

@testable import ConfigSchema

/// `Availability` keeps its fields in one shared storage: it must still behave as a value.
@Suite struct AvailabilityValueTests {
    @Test func aChangedCopyLeavesTheOriginalAlone() {
        var payload = Availability()
        #expect(payload.isUnrestricted)
        payload.platforms = ["iOS", "macOS"]
        payload.introduced["ios"] = "16.0"
        payload.rules["ios"] = PlatformRules()
        let key = payload
        #expect(key == payload)

        var changed = key
        changed.introduced["ios"] = "17.0"
        changed.unsupported.insert("tvos")
        #expect(changed != key)
        #expect(key.introduced == ["ios": "16.0"])
        #expect(key.unsupported.isEmpty)
        #expect(payload == key)
        #expect(!key.isUnrestricted)
        #expect(changed.introduced == ["ios": "17.0"])
        #expect(changed.unsupported == ["tvos"])
    }

    @Test func equalFieldsInSeparateStoragesAreEqual() {
        var a = Availability()
        var b = Availability()
        a.removedIn["macos"] = "15.0"
        b.removedIn["macos"] = "15.0"
        #expect(a == b)
        b.deprecated["macos"] = "14.0"
        #expect(a != b)
        // Emptied again, an availability is unrestricted even in a storage of its own.
        b.deprecated = [:]
        b.removedIn = [:]
        #expect(b.isUnrestricted)
        #expect(b == Availability())
    }
}
