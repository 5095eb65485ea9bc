/// MDM variables: the tokens consoles replace per user or device before a configuration reaches the app.
public enum MDM: String, Sendable, CaseIterable {
    /// Jamf Pro: `$SERIALNUMBER`, `$EMAIL` and the like.
    case jamf
    /// Microsoft Intune: `{{serialnumber}}`, `{{mail}}` and the like.
    case intune
    /// Workspace ONE UEM: `{DeviceSerialNumber}`, `{EmailAddress}` and the like.
    case workspaceone
    /// Fleet: `$FLEET_VAR_…`.
    case fleet
    /// Recognise the tokens of every MDM (the default).
    case any
}

/// One token found in a string, e.g. `$EMAIL` or `{{mail}}`.
public struct VariableToken: Sendable, Hashable {
    /// The MDM whose syntax the token uses.
    public var mdm: MDM
    /// The name as that MDM writes it (`EMAIL`, `mail`, `EmailAddress`, `FLEET_VAR_HOST_UUID`).
    public var name: String
    /// The token as written (`$EMAIL`).
    public var text: String
    /// The MDM documents this name.
    public var isKnown: Bool
}

/// Finding MDM variable tokens in configuration strings.
public enum MDMVariables {
    static let jamf: Set<String> = [
        "EMAIL", "UDID", "SERIALNUMBER", "USERNAME", "FULLNAME", "REALNAME", "DEVICENAME", "COMPUTERNAME", "JSSID",
        "MACADDRESS", "PHONE", "POSITION", "ROOM", "BUILDING", "DEPARTMENT", "SITENAME", "SITEID", "ASSET_TAG",
        "MANAGEMENTID", "PROFILEJSSID", "UUID", "MODEL", "MODELIDENTIFIER", "OSVERSION",
    ]
    static let intune: Set<String> = [
        "userprincipalname", "mail", "partialupn", "accountid", "deviceid", "userid", "username", "serialnumber",
        "serialnumberlast4digits", "udidlast4digits", "aaddeviceid", "devicename", "imei", "domain", "accountname",
        "onpremisessamaccountname", "sitecode",
    ]
    static let workspaceOne: Set<String> = [
        "EmailAddress", "EmailUserName", "EmailDomain", "UserName", "EnrollmentUser", "UserPrincipalName",
        "DeviceSerialNumber", "DeviceUid", "DeviceUdid", "DeviceFriendlyName", "DeviceModel", "DevicePlatform",
        "DeviceImei", "DeviceWLANMac", "DeviceOperatingSystem", "FirstName", "LastName", "DisplayName",
        "GroupIdentifier", "DeviceAssetNumber", "EnrollmentUserId", "UserDistinguishedName",
    ]
    static let fleet: Set<String> = [
        "FLEET_VAR_HOST_UUID", "FLEET_VAR_HOST_HARDWARE_SERIAL", "FLEET_VAR_HOST_END_USER_EMAIL_IDP",
        "FLEET_VAR_HOST_END_USER_IDP_USERNAME", "FLEET_VAR_HOST_END_USER_IDP_USERNAME_LOCAL_PART",
        "FLEET_VAR_HOST_END_USER_IDP_GROUPS", "FLEET_VAR_HOST_END_USER_IDP_DEPARTMENT", "FLEET_VAR_NDES_SCEP_CHALLENGE",
        "FLEET_VAR_NDES_SCEP_PROXY_URL", "FLEET_VAR_HOST_PLATFORM",
    ]

    /// Every token in `text` in the syntaxes of `mdm` (all of them for `.any`), in order of appearance.
    public static func tokens(in text: String, for mdm: MDM = .any) -> [VariableToken] {
        var text = text
        return text.withUTF8 { tokens(inUTF8: $0, for: mdm) }
    }

    /// `tokens(in:for:)` over the text's UTF-8. Every byte a token is made of is ASCII (`$`, braces, letters,
    /// digits, `_`), and no byte of a longer UTF-8 sequence is: reading bytes finds what reading Unicode scalars
    /// finds, without decoding them (a catalog's load substitutes into every inventory device's configuration).
    static func tokens(inUTF8 bytes: UnsafeBufferPointer<UInt8>, for mdm: MDM) -> [VariableToken] {
        // Most strings hold neither `$` nor `{`.
        guard bytes.contains(where: { $0 == UInt8(ascii: "$") || $0 == UInt8(ascii: "{") }) else { return [] }
        func isLetterOrDigit(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default: false
            }
        }
        /// Where the name that starts at `start` ends: letters and digits, and `_` when `underscore`.
        func nameEnd(from start: Int, underscore: Bool) -> Int {
            var end = start
            while end < bytes.count, isLetterOrDigit(bytes[end]) || (underscore && bytes[end] == UInt8(ascii: "_")) {
                end += 1
            }
            return end
        }
        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        func isCapital(_ index: Int) -> Bool { bytes[index] >= UInt8(ascii: "A") && bytes[index] <= UInt8(ascii: "Z") }
        let open = UInt8(ascii: "{")
        let close = UInt8(ascii: "}")
        var found: [VariableToken] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "$") {
                let end = nameEnd(from: index + 1, underscore: true)
                if end > index + 1, isCapital(index + 1) {
                    let name = text(index + 1..<end)
                    let isFleet = name.hasPrefix("FLEET_VAR_")
                    let kind: MDM = isFleet ? .fleet : .jamf
                    if mdm == .any || mdm == kind {
                        let known =
                            isFleet
                            ? fleet.contains(name) : jamf.contains(name) || name.hasPrefix("EXTENSIONATTRIBUTE_")
                        found.append(VariableToken(mdm: kind, name: name, text: "$" + name, isKnown: known))
                    }
                    index = end
                    continue
                }
            } else if byte == open, index + 1 < bytes.count, bytes[index + 1] == open {
                let end = nameEnd(from: index + 2, underscore: true)
                if end > index + 2, end + 1 < bytes.count, bytes[end] == close, bytes[end + 1] == close {
                    if mdm == .any || mdm == .intune {
                        let name = text(index + 2..<end)
                        found.append(
                            VariableToken(
                                mdm: .intune, name: name, text: "{{\(name)}}",
                                isKnown: intune.contains(name.lowercased())))
                    }
                    index = end + 2
                    continue
                }
            } else if byte == open {
                let end = nameEnd(from: index + 1, underscore: false)
                if end > index + 1, isCapital(index + 1), end < bytes.count, bytes[end] == close {
                    if mdm == .any || mdm == .workspaceone {
                        let name = text(index + 1..<end)
                        found.append(
                            VariableToken(
                                mdm: .workspaceone, name: name, text: "{\(name)}", isKnown: workspaceOne.contains(name))
                        )
                    }
                    index = end + 1
                    continue
                }
            }
            index += 1
        }
        return found
    }

    /// `text` with every token whose name is in `values` replaced by its value.
    public static func substitute(_ text: String, values: [String: String], for mdm: MDM = .any) -> String {
        var result = text
        for token in tokens(in: text, for: mdm) {
            guard let value = values[token.name] else { continue }
            result = result.replacingAll(token.text, with: value)
        }
        return result
    }
}

extension String {
    /// Every occurrence of `target` replaced, matched by UTF-8 bytes as `MDMVariables.tokens` finds tokens (the
    /// standard library's `firstRange(of:)` was a sixth of loading a catalog with 2,000 inventory devices).
    func replacingAll(_ target: String, with replacement: String) -> String {
        let pattern = Array(target.utf8)
        guard let first = pattern.first else { return self }
        return withContiguousUTF8 { text in
            var result: [UInt8] = []
            var copied = 0
            var index = 0
            while index + pattern.count <= text.count {
                if text[index] == first && text[index..<index + pattern.count].elementsEqual(pattern) {
                    result.append(contentsOf: text[copied..<index])
                    result.append(contentsOf: replacement.utf8)
                    index += pattern.count
                    copied = index
                } else {
                    index += 1
                }
            }
            guard copied > 0 else { return self }
            result.append(contentsOf: text[copied...])
            return String(decoding: result, as: UTF8.self)
        }
    }

    /// The UTF-8 of the string as one buffer (a copy only for a bridged or non-contiguous string).
    private func withContiguousUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var text = self
        return text.withUTF8(body)
    }
}
