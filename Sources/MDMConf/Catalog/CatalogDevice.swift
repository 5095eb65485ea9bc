import ConfigSchema
import PropertyList

/// One device of `devices.plist`: its id, its attributes and its groups in the order written.
public struct CatalogDevice: Sendable, Equatable {
    /// The device id: the key in `devices.plist`, the `?device=` of requests.
    public let id: String
    /// String attributes as written (`udid`, `serialNumber`, `email`, `username`, …).
    public let attributes: [String: String]
    /// Group names, first match wins when choosing a configuration variant.
    public let groups: [String]

    /// The platform family the inventory says the device is (its `platform` attribute; Apple when absent).
    public var platform: ConfigPlatform { ConfigPlatform(attributes["platform"]) }

    /// A device as `devices.plist` writes it.
    public init(id: String, attributes: [String: String], groups: [String]) {
        self.id = id
        self.attributes = attributes
        self.groups = groups
    }

    /// The inventory attributes and the MDM variable names each one fills, in every MDM's spelling
    /// (Jamf `$EMAIL`, Intune `{{mail}}`, Workspace ONE `{EmailAddress}`, Fleet `$FLEET_VAR_…`).
    public static let variableNames: [(attribute: String, names: [String])] = [
        ("udid", ["UDID", "UUID", "DeviceUdid", "DeviceUid", "FLEET_VAR_HOST_UUID"]),
        (
            "serialNumber",
            ["SERIALNUMBER", "serialnumber", "DeviceSerialNumber", "FLEET_VAR_HOST_HARDWARE_SERIAL"]
        ),
        ("email", ["EMAIL", "mail", "EmailAddress", "FLEET_VAR_HOST_END_USER_EMAIL_IDP"]),
        ("username", ["USERNAME", "username", "UserName", "EnrollmentUser", "FLEET_VAR_HOST_END_USER_IDP_USERNAME"]),
        ("userPrincipalName", ["userprincipalname", "UserPrincipalName"]),
        ("fullName", ["FULLNAME", "REALNAME", "DisplayName"]),
        ("deviceName", ["DEVICENAME", "COMPUTERNAME", "devicename", "DeviceFriendlyName"]),
        ("model", ["MODEL", "DeviceModel"]),
        ("department", ["DEPARTMENT"]),
        ("building", ["BUILDING"]),
        ("room", ["ROOM"]),
        ("assetTag", ["ASSET_TAG", "DeviceAssetNumber"]),
        ("phone", ["PHONE"]),
    ]

    /// The values substituted into this device's configurations: every MDM spelling of each known attribute,
    /// derived values (`serialnumberlast4digits`, `udidlast4digits`, `EmailUserName`, `EmailDomain`,
    /// `partialupn`), and any attribute whose name is itself a variable name (`EXTENSIONATTRIBUTE_7`).
    public var variableValues: [String: String] {
        var values: [String: String] = [:]
        for (name, value) in attributes { values[name] = value }
        for (attribute, names) in Self.variableNames {
            guard let value = attributes[attribute] else { continue }
            for name in names { values[name] = value }
        }
        if let serial = attributes["serialNumber"] { values["serialnumberlast4digits"] = String(serial.suffix(4)) }
        if let udid = attributes["udid"] { values["udidlast4digits"] = String(udid.suffix(4)) }
        if let email = attributes["email"], let at = email.lastIndex(of: "@") {
            values["EmailUserName"] = String(email[..<at])
            values["EmailDomain"] = String(email[email.index(after: at)...])
        }
        if let upn = attributes["userPrincipalName"], let at = upn.lastIndex(of: "@") {
            values["partialupn"] = String(upn[..<at])
        }
        return values
    }

    /// Device ids name devices in URLs (`?device=`): 1 to 128 of `A-Z a-z 0-9 . _ : -`.
    public static func isValidID(_ id: String) -> Bool {
        // Over the contiguous bytes: iterating `String.UTF8View` costs several times more, on every request that
        // names a device.
        var id = id
        return id.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= 128 else { return false }
            return bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"),
                    UInt8(ascii: "-"):
                    true
                default: false
                }
            }
        }
    }
}

/// Substituting a device's attributes into a configuration.
extension MDMVariables {
    /// `value` with the variables of every string (not keys) replaced by `values`; tokens without a value stay
    /// as written.
    public static func substitute(in value: PlistValue, values: [String: String]) -> PlistValue {
        switch value {
        case .string(let text): .string(substitute(text, values: values))
        case .array(let items):
            .array(items.map { PlistNode(substitute(in: $0.value, values: values), at: $0.position) })
        case .dictionary(var dict):
            {
                for index in dict.entries.indices {
                    let node = dict.entries[index].value
                    dict.entries[index].value = PlistNode(substitute(in: node.value, values: values), at: node.position)
                }
                return .dictionary(dict)
            }()
        default: value
        }
    }
}
