import DevicePolicy
import Testing

/// App ids as paths and check-ins take them: `[A-Za-z0-9.-]+`, at most 255 bytes, no empty label.
struct BundleIDTests {
    @Test(arguments: [
        ("com.example.field", true), ("a", true), ("A-1.b-2", true), ("com..example", false), (".com.example", false),
        ("com.example.", false), (".", false), ("..", false), ("", false), ("com.example field", false),
        ("com/example", false), ("com.exämple", false), (String(repeating: "a", count: 255), true),
        (String(repeating: "a", count: 256), false), (String(repeating: "a.", count: 127) + "a", true),
    ])
    func wellFormedIDs(_ id: String, _ wellFormed: Bool) {
        #expect(BundleID.isWellFormed(id) == wellFormed, "\(id)")
    }
}
