import MDMDiagnostics
import PropertyList

extension PolicyReader {
    /// One policy dict, every key checked; nil when it cannot be a policy at all (no usable id or app).
    mutating func policy(_ node: PlistNode, path: KeyPath, defaults: PolicyDocument.Defaults, hasDefaultZone: Bool)
        -> Policy?
    {
        guard case .dictionary(let dict) = node.value else {
            typeError(node, expected: "a dict", path: path)
            return nil
        }
        checkKeys(dict, known: Self.policyKeys, path: path)
        func at(_ key: String) -> KeyPath { path.appending(key: key) }

        let (id, app) = identity(dict, of: node, path: path)
        var policy = Policy(id: id, app: app)
        targeting(dict, path: path, into: &policy)
        requirements(dict, path: path, into: &policy)
        schedule(dict, of: node, path: path, into: &policy)
        if let value = dict["defaultLocale"] { policy.defaultLocale = locale(value, path: at("defaultLocale")) }
        if let value = dict["messages"] { policy.messages = messages(value, path: at("messages")) }
        if let value = dict["updateUrl"] { updateURL(value, path: at("updateUrl"), into: &policy) }

        // Presence, not parsed values, decides: an invalid minVersion is still a requirement (no cascade).
        let requirementKeys = ["minVersion", "minBuild", "blockedVersions", "recommendedVersion", "recommendedBuild"]
        if !requirementKeys.contains(where: { dict[$0] != nil }) {
            error(
                UpdatePolicyCode.noRequirement, "the policy requires nothing", at: node.position, path: path,
                hint: "set minVersion, minBuild, blockedVersions, recommendedVersion or recommendedBuild")
        }
        lint(policy, dict: dict, at: node.position, path: path, defaults: defaults, hasDefaultZone: hasDefaultZone)
        return policy
    }

    /// The policy's `id` and `app`, each reported when missing or invalid (empty then).
    private mutating func identity(_ dict: PlistDictionary, of node: PlistNode, path: KeyPath) -> (
        id: String, app: String
    ) {
        func at(_ key: String) -> KeyPath { path.appending(key: key) }
        var id = ""
        if let idNode = dict["id"], let text = string(idNode, path: at("id")) {
            if Self.isValidID(text) {
                id = text
            } else {
                error(
                    UpdatePolicyCode.invalidID, "'\(text)' is not a policy id", at: idNode.position, path: at("id"),
                    hint: "ids are [A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
            }
        } else if dict["id"] == nil {
            error(UpdatePolicyCode.missingKey, "the policy has no id", at: node.position, path: path)
        }
        var app = catalogApp ?? ""
        if let appNode = dict["app"], let text = string(appNode, path: at("app")) {
            if text.isEmpty || (text != "*" && (text.contains("*") || text.contains("?"))) {
                error(
                    UpdatePolicyCode.invalidApp, "app '\(text)' is empty or a partial glob", at: appNode.position,
                    path: at("app"), hint: "write an exact app id, or * for every app")
            } else if let catalogApp, text != catalogApp, text != "*" {
                error(
                    UpdatePolicyCode.appMismatch, "app '\(text)' in the policy file of '\(catalogApp)'",
                    at: appNode.position, path: at("app"))
            } else {
                app = text
            }
        } else if dict["app"] == nil, catalogApp == nil {
            error(
                UpdatePolicyCode.missingKey, "the policy has no app", at: node.position, path: path,
                hint: "add app with the app's bundle id or package name, or *")
        }
        return (id, app)
    }

    /// 5.2's keys: who the policy is for (priority, platforms, channels, OS and app versions, models, start, rollout).
    private mutating func targeting(_ dict: PlistDictionary, path: KeyPath, into policy: inout Policy) {
        func at(_ key: String) -> KeyPath { path.appending(key: key) }
        if let value = dict["priority"] { policy.priority = integer(value, path: at("priority")) ?? 0 }
        if let value = dict["platforms"] {
            policy.platforms = list(value, path: at("platforms")) { $0.token($1, path: $2) }
        }
        if let value = dict["channels"] {
            policy.channels = list(value, path: at("channels")) { $0.token($1, path: $2) }
        }
        if let value = dict["osVersion"] {
            policy.osVersion = parsed(
                value, path: at("osVersion"), code: UpdatePolicyCode.invalidRange, what: "an OS version range"
            ) {
                VersionRange<OSVersion>($0)
            }
        }
        if let value = dict["appVersion"] {
            policy.appVersion = parsed(
                value, path: at("appVersion"), code: UpdatePolicyCode.invalidRange, what: "an app version range"
            ) {
                VersionRange<AppVersion>($0)
            }
        }
        if let value = dict["deviceModels"] {
            policy.deviceModels = list(value, path: at("deviceModels")) { reader, item, itemPath in
                guard let text = reader.string(item, path: itemPath) else { return nil }
                guard let glob = ModelGlob(text) else {
                    reader.error(
                        UpdatePolicyCode.invalidValue, "a device-model glob is empty", at: item.position, path: itemPath
                    )
                    return nil
                }
                return glob
            }
        }
        if let value = dict["notBefore"] { policy.notBefore = dateTime(value, path: at("notBefore")) }
        if let value = dict["rollout"] { policy.rollout = rollout(value, path: at("rollout"), defaultSeed: policy.id) }
    }

    /// The hard and soft requirements: minimum and recommended versions and builds, blocked and latest versions.
    private mutating func requirements(_ dict: PlistDictionary, path: KeyPath, into policy: inout Policy) {
        func at(_ key: String) -> KeyPath { path.appending(key: key) }
        if let value = dict["minVersion"] {
            policy.minVersion = parsed(
                value, path: at("minVersion"), code: UpdatePolicyCode.invalidVersion, what: "an app version"
            ) { AppVersion($0) }
        }
        if let value = dict["minBuild"] {
            policy.minBuild = parsed(
                value, path: at("minBuild"), code: UpdatePolicyCode.invalidBuild, what: "a build number"
            ) { BuildNumber($0) }
        }
        if let value = dict["blockedVersions"] {
            policy.blockedVersions = list(value, path: at("blockedVersions")) { reader, item, itemPath in
                reader.parsed(item, path: itemPath, code: UpdatePolicyCode.invalidRange, what: "an app version range") {
                    VersionRange<AppVersion>($0)
                }
            }
        }
        if let value = dict["recommendedVersion"] {
            policy.recommendedVersion = parsed(
                value, path: at("recommendedVersion"), code: UpdatePolicyCode.invalidVersion, what: "an app version"
            ) {
                AppVersion($0)
            }
        }
        if let value = dict["recommendedBuild"] {
            policy.recommendedBuild = parsed(
                value, path: at("recommendedBuild"), code: UpdatePolicyCode.invalidBuild, what: "a build number"
            ) {
                BuildNumber($0)
            }
        }
        if let value = dict["latestVersion"] {
            policy.latestVersion = parsed(
                value, path: at("latestVersion"), code: UpdatePolicyCode.invalidVersion, what: "an app version"
            ) {
                AppVersion($0)
            }
        }
    }

    /// When and how an unmet requirement presses: deadline, zone, windows, deferrals, grace, OS, indeterminate builds.
    private mutating func schedule(
        _ dict: PlistDictionary, of node: PlistNode, path: KeyPath, into policy: inout Policy
    ) {
        func at(_ key: String) -> KeyPath { path.appending(key: key) }
        if let value = dict["deadline"] { policy.deadline = dateTime(value, path: at("deadline")) }
        if let value = dict["timeZone"], let name = string(value, path: at("timeZone")) {
            policy.timeZone = zone(named: name, at: value.position, path: at("timeZone"))
        }
        if let value = dict["approachingWindow"], let window = duration(value, path: at("approachingWindow")) {
            policy.approachingWindow = window
        }
        if let value = dict["imminentWindow"], let window = duration(value, path: at("imminentWindow")) {
            policy.imminentWindow = window
        }
        if policy.imminentWindow > policy.approachingWindow {
            error(
                UpdatePolicyCode.invalidWindows,
                "imminentWindow \(policy.imminentWindow) is longer than approachingWindow \(policy.approachingWindow)",
                at: dict["imminentWindow"]?.position ?? dict["approachingWindow"]?.position ?? node.position,
                path: path,
                hint: "the defaults are 72h and 24h")
        }
        if let value = dict["maxDeferrals"], let count = integer(value, path: at("maxDeferrals")) {
            if count < 0 {
                error(
                    UpdatePolicyCode.invalidValue, "maxDeferrals must not be negative", at: value.position,
                    path: at("maxDeferrals"))
            } else {
                policy.maxDeferrals = count
            }
        }
        if let value = dict["newDeviceGrace"] { policy.newDeviceGrace = duration(value, path: at("newDeviceGrace")) }
        if let value = dict["requiresOS"] {
            policy.requiresOS = parsed(
                value, path: at("requiresOS"), code: UpdatePolicyCode.invalidOSVersion, what: "an OS version"
            ) { OSVersion($0) }
        }
        if let value = dict["onIndeterminate"], let text = string(value, path: at("onIndeterminate")) {
            if let action = IndeterminateAction(rawValue: text) {
                policy.onIndeterminate = action
            } else {
                error(
                    UpdatePolicyCode.invalidValue, "onIndeterminate '\(text)' is not error, required or ok",
                    at: value.position, path: at("onIndeterminate"))
            }
        }
    }

    static func isValidID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        func alnum(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
        }
        guard let first = bytes.first, alnum(first), bytes.count <= 64 else { return false }
        return bytes.dropFirst().allSatisfy { alnum($0) || $0 == 0x2E || $0 == 0x5F || $0 == 0x3A || $0 == 0x2D }
    }

    mutating func token(_ node: PlistNode, path: KeyPath) -> String? {
        guard let text = string(node, path: path) else { return nil }
        // The same rule as the request's platform and channel (*Update policies*).
        guard let lowered = UpdateRequest.token(text)
        else {
            error(
                UpdatePolicyCode.invalidValue, "'\(text)' is not a token", at: node.position, path: path,
                hint: "tokens use a-z, 0-9, _ and -")
            return nil
        }
        return lowered
    }

    mutating func rollout(_ node: PlistNode, path: KeyPath, defaultSeed: String) -> (RolloutPercent, String)? {
        guard case .dictionary(let dict) = node.value else {
            typeError(node, expected: "a dict", path: path)
            return nil
        }
        checkKeys(dict, known: ["percent", "seed"], path: path)
        var seed = defaultSeed
        if let value = dict["seed"], let text = string(value, path: path.appending(key: "seed")) {
            if text.count > 64 || text.isEmpty {
                error(
                    UpdatePolicyCode.invalidValue, "the rollout seed must have 1 to 64 characters", at: value.position,
                    path: path.appending(key: "seed"))
            }
            seed = text
        }
        guard let value = dict["percent"] else {
            error(UpdatePolicyCode.missingKey, "rollout has no percent", at: node.position, path: path)
            return nil
        }
        let percentPath = path.appending(key: "percent")
        guard let text = literal(value) else {
            error(
                UpdatePolicyCode.invalidPercent, "the rollout percent is not a number", at: value.position,
                path: percentPath)
            return nil
        }
        guard let percent = RolloutPercent(literal: text) else {
            let tooPrecise = text.split(separator: ".").last.map { $0.count > 2 } ?? false
            error(
                UpdatePolicyCode.invalidPercent, "rollout percent '\(text)' is not 0–100 with at most 2 decimals",
                at: value.position,
                path: percentPath, hint: tooPrecise ? "write the percent as a string, e.g. \"52.34\"" : nil)
            return nil
        }
        return (percent, seed)
    }

    mutating func messages(_ node: PlistNode, path: KeyPath) -> [Message] {
        guard case .dictionary(let dict) = node.value else {
            typeError(node, expected: "a dict of locale to {title, body}", path: path)
            return []
        }
        var result: [Message] = []
        for entry in dict.entries {
            let entryPath = path.appending(key: entry.key)
            guard let tag = LocaleTag(entry.key) else {
                error(
                    UpdatePolicyCode.invalidLocale, "'\(entry.key)' is not a locale tag", at: entry.keyPosition,
                    path: entryPath)
                continue
            }
            if result.contains(where: { $0.locale == tag }) {
                error(
                    UpdatePolicyCode.duplicateLocale, "'\(entry.key)' repeats a locale", at: entry.keyPosition,
                    path: entryPath, hint: "locales compare case-insensitively, with _ = -")
                continue
            }
            guard case .dictionary(let texts) = entry.value.value else {
                typeError(entry.value, expected: "a dict with title and body", path: entryPath)
                continue
            }
            checkKeys(texts, known: ["title", "body"], path: entryPath)
            var message = Message(locale: tag)
            for key in ["title", "body"] {
                guard let value = texts[key], let text = string(value, path: entryPath.appending(key: key)) else {
                    continue
                }
                if text.isEmpty {
                    error(
                        UpdatePolicyCode.invalidValue, "an empty \(key)", at: value.position,
                        path: entryPath.appending(key: key))
                }
                if key == "title" { message.title = text } else { message.body = text }
            }
            result.append(message)
        }
        return result
    }

    mutating func updateURL(_ node: PlistNode, path: KeyPath, into policy: inout Policy) {
        func check(_ text: String, at position: SourcePosition, path: KeyPath) -> Bool {
            // An absolute URL: a scheme (letter, then letters, digits, + - .), a colon, and something after it.
            guard let colon = text.firstIndex(of: ":"), let first = text.first, first.isASCII, first.isLetter,
                text[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
                text.index(after: colon) < text.endIndex, !text.contains(" ")
            else {
                error(
                    UpdatePolicyCode.invalidURL, "'\(text)' is not an absolute URL", at: position, path: path,
                    hint: "for example https://apps.example.com/app or itms-apps://…")
                return false
            }
            return true
        }
        switch node.value {
        case .string(let text):
            if check(text, at: node.position, path: path) { policy.updateURL = text }
        case .dictionary(let dict):
            for entry in dict.entries {
                let entryPath = path.appending(key: entry.key)
                guard let tag = LocaleTag(entry.key) else {
                    error(
                        UpdatePolicyCode.invalidLocale, "'\(entry.key)' is not a locale tag", at: entry.keyPosition,
                        path: entryPath)
                    continue
                }
                if policy.localizedUpdateURLs.contains(where: { $0.locale == tag }) {
                    error(
                        UpdatePolicyCode.duplicateLocale, "'\(entry.key)' repeats a locale", at: entry.keyPosition,
                        path: entryPath)
                    continue
                }
                if let text = string(entry.value, path: entryPath),
                    check(text, at: entry.value.position, path: entryPath)
                {
                    policy.localizedUpdateURLs.append((tag, text))
                }
            }
        default:
            typeError(node, expected: "a URL string or a dict of locale to URL", path: path)
        }
    }
}
