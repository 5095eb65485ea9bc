import ConfigSchema
import MDMDiagnostics
import Testing

/// *Schemas and validation*: every presentation field's keyName must name a key of the dict.
struct PresentationTests {
    @Test func aFieldForAnUndeclaredKeyIsAnError() {
        let load = Support.specfile(
            """
            <managedAppConfiguration>
              <version>1</version>
              <bundleId>com.example.app</bundleId>
              <dict>
                <string keyName="ServerURL"/>
              </dict>
              <presentation defaultLocale="en">
                <field keyName="ServerUrl" type="input">
                  <label><language value="en">Server</language></label>
                </field>
              </presentation>
            </managedAppConfiguration>
            """)
        let finding = load.diagnostics.first { $0.code == SchemaCode.fieldUnknownKey }
        #expect(finding?.severity == .error, "\(load.diagnostics.map { "\($0.code.code) \($0.message)" })")
        #expect(finding?.message == "field names the key 'ServerUrl', which the dict does not declare")
        #expect(finding?.hint == "did you mean 'ServerURL'?")
        #expect(finding?.line == 8)
    }
}
