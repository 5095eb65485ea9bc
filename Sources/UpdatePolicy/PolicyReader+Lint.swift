import MDMDiagnostics
import PropertyList

extension PolicyReader {
    /// The warnings of *Update policies*: never errors, never a change of decision.
    mutating func lint(
        _ policy: Policy, dict: PlistDictionary, at position: SourcePosition, path: KeyPath,
        defaults: PolicyDocument.Defaults, hasDefaultZone: Bool
    ) {
        func where_(_ key: String) -> (SourcePosition, KeyPath) {
            (dict[key]?.position ?? position, path.appending(key: key))
        }
        if let recommended = policy.recommendedVersion, let minimum = policy.minVersion, recommended < minimum {
            let (at, keyPath) = where_("recommendedVersion")
            warning(
                UpdatePolicyCode.recommendedBelowMinimum,
                "recommendedVersion \(recommended) is below minVersion \(minimum)", at: at, path: keyPath)
        }
        if let recommended = policy.recommendedBuild, let minimum = policy.minBuild, recommended < minimum {
            let (at, keyPath) = where_("recommendedBuild")
            warning(
                UpdatePolicyCode.recommendedBelowMinimum,
                "recommendedBuild \(recommended) is below minBuild \(minimum)", at: at, path: keyPath)
        }
        if let latest = policy.latestVersion {
            for (key, bound) in [("minVersion", policy.minVersion), ("recommendedVersion", policy.recommendedVersion)] {
                if let bound, latest < bound {
                    let (at, keyPath) = where_("latestVersion")
                    warning(
                        UpdatePolicyCode.latestBelowRequirement, "latestVersion \(latest) is below \(key) \(bound)",
                        at: at, path: keyPath)
                }
            }
        }
        let hard = ["minVersion", "minBuild", "blockedVersions"].contains { dict[$0] != nil }
        let hasDeadline = dict["deadline"] != nil || dict["newDeviceGrace"] != nil
        for key in ["deadline", "approachingWindow", "imminentWindow", "maxDeferrals", "newDeviceGrace"]
        where dict[key] != nil {
            let (at, keyPath) = where_(key)
            if !hard {
                warning(
                    UpdatePolicyCode.ineffectiveKey, "\(key) has no effect without a hard requirement", at: at,
                    path: keyPath, hint: "deadlines apply to minVersion, minBuild and blockedVersions")
            } else if ["approachingWindow", "imminentWindow", "maxDeferrals"].contains(key), !hasDeadline {
                warning(
                    UpdatePolicyCode.ineffectiveKey, "\(key) has no effect without deadline or newDeviceGrace", at: at,
                    path: keyPath)
            }
        }
        if dict["onIndeterminate"] != nil, dict["minBuild"] == nil {
            let (at, keyPath) = where_("onIndeterminate")
            warning(
                UpdatePolicyCode.ineffectiveKey, "onIndeterminate has no effect without minBuild", at: at, path: keyPath
            )
        }
        if hard, dict["latestVersion"] == nil, dict["minVersion"] == nil {
            warning(
                UpdatePolicyCode.noTarget, "the hard requirement names no version to update to", at: position,
                path: path,
                hint: "add latestVersion so clients know the target")
        }
        let fallback = policy.defaultLocale ?? defaults.locale
        let keys = policy.messages.map(\.locale) + policy.localizedUpdateURLs.map(\.locale)
        if !keys.isEmpty {
            let matches =
                fallback.map { tag in tag.fallbackKeys.contains { key in keys.contains { $0.key == key } } } ?? false
            if !matches {
                let (at, keyPath) = where_(dict["messages"] != nil ? "messages" : "updateUrl")
                warning(
                    UpdatePolicyCode.noDefaultLocale, "no default locale matches a message or URL locale", at: at,
                    path: keyPath,
                    hint: "set defaultLocale (or defaults.locale) to one of \(keys.map(\.text).joined(separator: ", "))"
                )
            }
        }
        if policy.timeZone == nil, !hasDefaultZone {
            for key in ["deadline", "notBefore"] {
                guard let value = key == "deadline" ? policy.deadline : policy.notBefore, value.isFloating else {
                    continue
                }
                let (at, keyPath) = where_(key)
                warning(
                    UpdatePolicyCode.floatingWithoutZone,
                    "\(key) '\(value)' is a local time with no timeZone to fall back on",
                    at: at, path: keyPath,
                    hint: "devices that send no timeZone will use UTC; set timeZone or defaults.timeZone")
            }
        }
    }
}
