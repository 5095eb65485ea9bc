import MDMDiagnostics
import PropertyList

/// The evaluated keys of each payload type (*Device policies*), validated strictly: no coercion.
extension DocumentReader {
    /// The entry for `current` or its deprecated `alias`; the current key wins when both are present.
    mutating func take(_ keys: inout PayloadKeys, _ current: String, alias: String? = nil) -> PlistDictionary.Entry? {
        keys.evaluated.insert(current)
        let currentEntry = keys.dict.entry(current)
        if currentEntry != nil { keys.used.insert(current) }
        guard let alias, let aliasEntry = keys.dict.entry(alias) else { return currentEntry }
        keys.used.insert(alias)
        if currentEntry != nil {
            lint(
                .deprecatedAndCurrent, "'\(alias)' and '\(current)' are both set: '\(alias)' is ignored",
                aliasEntry.keyPosition, alias, hint: "remove '\(alias)'")
            return currentEntry
        }
        lint(.deprecatedKey, "'\(alias)' is deprecated", aliasEntry.keyPosition, alias, hint: "use '\(current)'")
        return aliasEntry
    }

    mutating func bool(_ entry: PlistDictionary.Entry, path: String) -> Setting<Bool>? {
        guard case .boolean(let value) = entry.value.value else {
            wrongType(entry.value, expected: "boolean", path: path)
            return nil
        }
        return Setting(value: value, key: entry.key, index: nil, written: .bool(value), position: entry.value.position)
    }

    /// An Apple 0/1 integer key (`<true/>` is a type error).
    mutating func zeroOne(_ entry: PlistDictionary.Entry, path: String) -> Setting<Int64>? {
        guard case .integer(let value) = entry.value.value else {
            wrongType(entry.value, expected: "integer", path: path)
            return nil
        }
        guard value == 0 || value == 1 else {
            error(DevicePolicyCode.invalidValue, "'\(path)' must be 0 or 1, found \(value)", entry.value.position, path)
            return nil
        }
        return Setting(
            value: value, key: entry.key, index: nil, written: .integer(value), position: entry.value.position)
    }

    /// An array of strings, each checked by `parse` (which returns the value or an error message).
    mutating func list<Value>(
        _ entry: PlistDictionary.Entry, path: String, code: DiagnosticCode, parse: (String) -> Result<Value, Message>
    ) -> ListSetting<Value>? {
        guard case .array(let items) = entry.value.value else {
            wrongType(entry.value, expected: "array", path: path)
            return nil
        }
        var list = ListSetting<Value>(key: entry.key, position: entry.value.position, entries: [])
        var valid = true
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard case .string(let text) = item.value else {
                wrongType(item, expected: "string", path: itemPath)
                valid = false
                continue
            }
            switch parse(text) {
            case .success(let value):
                list.entries.append(
                    Setting(value: value, key: entry.key, index: index, written: .string(text), position: item.position)
                )
            case .failure(let message):
                error(code, "'\(itemPath)' \(message.text)", item.position, itemPath)
                valid = false
            }
        }
        return valid ? list : nil
    }

    static func bundleID(_ text: String) -> Result<String, Message> {
        BundleID.isValid(text) ? .success(text) : .failure(Message("'\(text)' is not a bundle id ([A-Za-z0-9.-]+)"))
    }

    static func urlPattern(_ text: String) -> Result<URLPattern, Message> {
        do { return .success(try URLPattern(parsing: text)) } catch {
            return .failure(Message("'\(text)' \(error.reason)"))
        }
    }

    static func textSSID(_ text: String) -> Result<SSID, Message> {
        SSID(text: text).map { .success($0) }
            ?? .failure(Message("'\(text)' is not an SSID of 1 to 32 bytes (\(text.utf8.count) bytes)"))
    }

    static func hexSSID(_ text: String) -> Result<SSID, Message> {
        SSID(hex: text).map { .success($0) }
            ?? .failure(Message("'\(text)' is not hex of 1 to 32 bytes (even length, no separators)"))
    }

    // MARK: - Payload types

    mutating func readRestrictions(_ keys: inout PayloadKeys) -> Restrictions {
        var restrictions = Restrictions()
        restrictions.settings = keys.dict
        for key in Restrictions.andKeys + Restrictions.orKeys {
            let alias = Restrictions.aliases.first { $0.value == key }?.key
            if let entry = take(&keys, key, alias: alias), let setting = bool(entry, path: entry.key) {
                restrictions.booleans[key] = setting
            }
        }
        func read(_ key: String, _ reader: inout DocumentReader, _ keys: inout PayloadKeys) -> ListSetting<String>? {
            let alias = Restrictions.aliases.first { $0.value == key }?.key
            guard let entry = reader.take(&keys, key, alias: alias) else { return nil }
            return reader.list(entry, path: entry.key, code: DevicePolicyCode.invalidBundleID, parse: Self.bundleID)
        }
        restrictions.allowListedApps = read("allowListedAppBundleIDs", &self, &keys)
        restrictions.blockedApps = read("blockedAppBundleIDs", &self, &keys)
        restrictions.asamApps = read("autonomousSingleAppModePermittedAppIDs", &self, &keys)
        return restrictions
    }

    mutating func readAppLock(_ keys: inout PayloadKeys, at position: SourcePosition) -> AppLock? {
        guard let appEntry = take(&keys, "App") else {
            error(DevicePolicyCode.missingRequiredKey, "missing required key 'App'", position, nil)
            return nil
        }
        guard case .dictionary(let app) = appEntry.value.value else {
            wrongType(appEntry.value, expected: "dict", path: "App")
            return nil
        }
        var identifier: Setting<String>? = nil
        if let node = app["Identifier"] {
            if case .string(let text) = node.value {
                if BundleID.isValid(text) {
                    identifier = Setting(
                        value: text, key: "App.Identifier", index: nil, written: .string(text), position: node.position)
                } else {
                    error(
                        DevicePolicyCode.invalidBundleID,
                        "'App.Identifier' '\(text)' is not a bundle id ([A-Za-z0-9.-]+)",
                        node.position, "App.Identifier")
                }
            } else {
                wrongType(node, expected: "string", path: "App.Identifier")
            }
        } else {
            error(
                DevicePolicyCode.missingRequiredKey, "missing required key 'App.Identifier'", appEntry.value.position,
                "App")
        }
        var options: [String: Setting<Bool>] = [:]
        var userEnabled: [String: Setting<Bool>] = [:]
        for entry in app.entries {
            switch entry.key {
            case "Identifier": break
            case "Options": options = readOptions(entry, names: AppLock.optionKeys, path: "App.Options")
            case "UserEnabledOptions":
                userEnabled = readOptions(entry, names: AppLock.userEnabledKeys, path: "App.UserEnabledOptions")
            default:
                lint(
                    .unknownKey, "unknown key 'App.\(entry.key)'", entry.keyPosition, "App.\(entry.key)",
                    hint: Suggestion.closest(to: entry.key, in: ["Identifier", "Options", "UserEnabledOptions"])
                        .map { "did you mean '\($0)'?" })
            }
        }
        guard let identifier else { return nil }
        return AppLock(app: identifier, options: options, userEnabledOptions: userEnabled)
    }

    private mutating func readOptions(
        _ entry: PlistDictionary.Entry, names: [String], path: String
    ) -> [String: Setting<Bool>] {
        guard case .dictionary(let dict) = entry.value.value else {
            wrongType(entry.value, expected: "dict", path: path)
            return [:]
        }
        var result: [String: Setting<Bool>] = [:]
        for option in dict.entries {
            let optionPath = "\(path).\(option.key)"
            guard names.contains(option.key) else {
                lint(
                    .unknownKey, "unknown key '\(optionPath)'", option.keyPosition, optionPath,
                    hint: Suggestion.closest(to: option.key, in: names).map { "did you mean '\($0)'?" })
                continue
            }
            if let setting = bool(option, path: optionPath) {
                result[option.key] = Setting(
                    value: setting.value, key: optionPath, index: nil, written: setting.written,
                    position: setting.position)
            }
        }
        return result
    }

    mutating func readWebFilter(_ keys: inout PayloadKeys) -> WebFilter {
        var filter = WebFilter()
        if let entry = take(&keys, "FilterType") {
            if case .string(let type) = entry.value.value {
                if type == "Plugin" {
                    filter.isPlugin = true
                } else if type != "BuiltIn" {
                    error(
                        DevicePolicyCode.invalidValue, "'FilterType' must be BuiltIn or Plugin, found '\(type)'",
                        entry.value.position, "FilterType")
                }
            } else {
                wrongType(entry.value, expected: "string", path: "FilterType")
            }
        }
        if let entry = take(&keys, "AutoFilterEnabled") { filter.autoFilter = bool(entry, path: entry.key) }
        if let entry = take(&keys, "DenyListURLs", alias: "BlacklistedURLs") {
            filter.denyList = list(
                entry, path: entry.key, code: DevicePolicyCode.invalidURLPattern, parse: Self.urlPattern)
        }
        if let entry = take(&keys, "PermittedURLs") {
            filter.permitted = list(
                entry, path: entry.key, code: DevicePolicyCode.invalidURLPattern, parse: Self.urlPattern)
        }
        if let entry = take(&keys, "AllowListBookmarks", alias: "WhitelistedBookmarks") {
            filter.bookmarks = readBookmarks(entry)
        }
        for entry in keys.dict.entries {
            let builtIn = WebFilter.builtInKeys.contains(entry.key)
            let plugin = WebFilter.pluginKeys.contains(entry.key)
            if filter.isPlugin && builtIn && !plugin || !filter.isPlugin && plugin && !builtIn {
                lint(
                    .keyIgnoredForFilterType,
                    "'\(entry.key)' is ignored by a \(filter.isPlugin ? "Plugin" : "BuiltIn") filter",
                    entry.keyPosition, entry.key)
            }
        }
        if filter.permitted != nil, filter.autoFilter?.value != true, let entry = keys.dict.entry("PermittedURLs") {
            lint(
                .permittedWithoutAutoFilter, "'PermittedURLs' is ignored without AutoFilterEnabled = true",
                entry.keyPosition, entry.key)
        }
        return filter
    }

    private mutating func readBookmarks(_ entry: PlistDictionary.Entry) -> ListSetting<URLPattern>? {
        guard case .array(let items) = entry.value.value else {
            wrongType(entry.value, expected: "array", path: entry.key)
            return nil
        }
        var list = ListSetting<URLPattern>(key: entry.key, position: entry.value.position, entries: [])
        var valid = true
        for (index, item) in items.enumerated() {
            let path = "\(entry.key)[\(index)]"
            guard case .dictionary(let bookmark) = item.value else {
                wrongType(item, expected: "dict", path: path)
                valid = false
                continue
            }
            _ = string(bookmark, "Title", path: path, at: item.position)
            guard let node = bookmark["URL"] else {
                error(DevicePolicyCode.missingRequiredKey, "missing required key 'URL'", item.position, path)
                valid = false
                continue
            }
            guard case .string(let text) = node.value else {
                wrongType(node, expected: "string", path: "\(path).URL")
                valid = false
                continue
            }
            switch Self.urlPattern(text) {
            case .success(let pattern):
                list.entries.append(
                    Setting(
                        value: pattern, key: entry.key, index: index, written: .string(text), position: node.position))
            case .failure(let message):
                error(DevicePolicyCode.invalidURLPattern, "'\(path).URL' \(message.text)", node.position, "\(path).URL")
                valid = false
            }
        }
        return valid ? list : nil
    }

    mutating func readWiFi(_ keys: inout PayloadKeys, dict: PlistDictionary, at position: SourcePosition) -> WiFiNetwork
    {
        var network = WiFiNetwork(
            settings: PlistDictionary(
                dict.entries.filter { !Self.payloadKeys.contains($0.key) && $0.key != "SSID_STR" }))
        if let entry = take(&keys, "SSID_STR") {
            if case .string(let text) = entry.value.value {
                switch Self.textSSID(text) {
                case .success(let ssid):
                    network.ssid = Setting(
                        value: ssid, key: "SSID_STR", index: nil, written: .string(text), position: entry.value.position
                    )
                case .failure(let message):
                    error(DevicePolicyCode.invalidSSID, "'SSID_STR' \(message.text)", entry.value.position, "SSID_STR")
                }
            } else {
                wrongType(entry.value, expected: "string", path: "SSID_STR")
            }
        }
        if let entry = take(&keys, "HIDDEN_NETWORK") { network.hidden = bool(entry, path: entry.key) }
        let domain = take(&keys, "DomainName")
        if let domain { requireType(domain, "string", path: "DomainName") }
        if keys.dict["SSID_STR"] == nil {
            if domain == nil {
                error(
                    DevicePolicyCode.missingRequiredKey, "missing required key 'SSID_STR' (or 'DomainName')", position,
                    nil)
            } else {
                lint(
                    .passpointNotEvaluated, "Hotspot 2.0 payload without SSID_STR adds no profile network", position,
                    nil)
            }
        }
        return network
    }

    mutating func readWiFiRestrictions(_ keys: inout PayloadKeys) -> WiFiRestrictions {
        var restrictions = WiFiRestrictions()
        for key in ["AllowedSSIDs", "AllowedHexSSIDs", "DeniedSSIDs", "DeniedHexSSIDs"] {
            guard let entry = take(&keys, key) else { continue }
            let isHex = key.contains("Hex")
            let list = list(
                entry, path: key, code: DevicePolicyCode.invalidSSID, parse: isHex ? Self.hexSSID : Self.textSSID)
            guard let list else { continue }
            if key.hasPrefix("Allowed") {
                restrictions.allowed = (restrictions.allowed ?? []) + list.entries
                if restrictions.allowedKey == nil { restrictions.allowedKey = (key, entry.keyPosition) }
            } else {
                restrictions.denied += list.entries
            }
        }
        return restrictions
    }

    mutating func readVPN(_ keys: inout PayloadKeys, at position: SourcePosition) -> VPNSettings? {
        guard let typeEntry = take(&keys, "VPNType") else {
            error(DevicePolicyCode.missingRequiredKey, "missing required key 'VPNType'", position, nil)
            return nil
        }
        guard case .string(let type) = typeEntry.value.value else {
            wrongType(typeEntry.value, expected: "string", path: "VPNType")
            return nil
        }
        guard VPNSettings.types.contains(type) else {
            error(
                DevicePolicyCode.invalidValue,
                "'VPNType' must be one of VPN L2TP IPSec IKEv2 AlwaysOn TransparentProxy, found '\(type)'",
                typeEntry.value.position, "VPNType")
            return nil
        }
        var vpn = VPNSettings(
            type: Setting(
                value: type, key: "VPNType", index: nil, written: .string(type), position: typeEntry.value.position))
        let alwaysOn = take(&keys, "AlwaysOn")
        if let alwaysOn {
            if case .dictionary(let dict) = alwaysOn.value.value {
                for entry in dict.entries {
                    let path = "AlwaysOn.\(entry.key)"
                    switch entry.key {
                    case "UIToggleEnabled": vpn.uiToggleEnabled = zeroOne(entry, path: path).map { rename($0, path) }
                    case "TunnelConfigurations": requireType(entry, "array", path: path)
                    default: break
                    }
                }
            } else {
                wrongType(alwaysOn.value, expected: "dict", path: "AlwaysOn")
            }
        } else if type == "AlwaysOn" {
            error(
                DevicePolicyCode.missingRequiredKey, "missing required key 'AlwaysOn' (VPNType is AlwaysOn)", position,
                nil)
        }
        for container in ["IKEv2", "VPN"] {
            guard let entry = take(&keys, container) else { continue }
            guard case .dictionary(let dict) = entry.value.value else {
                wrongType(entry.value, expected: "dict", path: container)
                continue
            }
            let applies = container == type
            for member in dict.entries {
                let path = "\(container).\(member.key)"
                switch member.key {
                case "OnDemandEnabled":
                    let value = zeroOne(member, path: path).map { rename($0, path) }
                    if applies { vpn.onDemandEnabled = value }
                case "IncludeAllNetworks":
                    let value = zeroOne(member, path: path).map { rename($0, path) }
                    if applies { vpn.includeAllNetworks = value }
                case "OnDemandUserOverrideDisabled":
                    let value = zeroOne(member, path: path).map { rename($0, path) }
                    if applies { vpn.overrideDisabled = value }
                case "OnDemandRules":
                    guard case .array(let rules) = member.value.value else {
                        wrongType(member.value, expected: "array", path: path)
                        continue
                    }
                    if applies {
                        vpn.onDemandRules = Setting(
                            value: rules.count, key: path, index: nil, written: .integer(rules.count),
                            position: member.value.position)
                    }
                default: break
                }
            }
        }
        return vpn
    }

    private func rename<Value>(_ setting: Setting<Value>, _ key: String) -> Setting<Value> {
        Setting(
            value: setting.value, key: key, index: setting.index, written: setting.written, position: setting.position)
    }
}

/// An error message from a value check.
struct Message: Error {
    let text: String
    init(_ text: String) { self.text = text }
}
