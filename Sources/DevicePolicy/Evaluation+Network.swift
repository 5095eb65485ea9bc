import MDMDiagnostics

/// URL, Wi-Fi and VPN questions (*Device policies*).
extension Evaluation {
    /// Matching entries of one list: through the host index, or every entry when tracing.
    private mutating func matches(
        _ list: ListSetting<URLPattern>?, index: FilterIndex.Patterns, url: QueryURL, info: PayloadInfo
    ) -> [Setting<URLPattern>] {
        guard let list else { return [] }
        if tracing {
            var found: [Setting<URLPattern>] = []
            for entry in list.entries {
                let matched = entry.value.matches(url)
                traceMatch(info, key: entry.key, index: entry.index, value: entry.written, matched: matched)
                if matched { found.append(entry) }
            }
            return found
        }
        return index.candidates(for: url.host).lazy.map { list.entries[$0] }.filter { $0.value.matches(url) }
    }

    mutating func decideURL(_ url: QueryURL) -> PolicyDecision {
        var autoFilterPayloads: [(CompiledPayloads.Filter, FilterIndex, Setting<Bool>)] = []
        var plugins: [PayloadInfo] = []
        for compiled in engine.filters where isActive.isEmpty || isActive[compiled.position] {
            let info = compiled.info
            guard let index = compiled.index else {
                plugins.append(info)
                continue
            }
            for entry in matches(compiled.filter.denyList, index: index.deny, url: url, info: info) {
                reasons.append(
                    Reason(
                        "URL_DENYLISTED", .deny, info, entry,
                        message: "\(entry.key)[\(entry.index ?? 0)] '\(entry.written.stringValue)' matches \(url.host)")
                )
            }
            if let bookmarks = compiled.filter.bookmarks {
                let found = matches(bookmarks, index: index.bookmarks, url: url, info: info)
                if found.isEmpty {
                    reasons.append(
                        Reason(
                            "URL_NOT_ALLOWLISTED", .deny, info, key: bookmarks.key, position: bookmarks.position,
                            message: "no \(bookmarks.key) entry matches \(url.normalized)"
                                + (bookmarks.entries.isEmpty ? " (empty: allows nothing)" : "")))
                }
                for entry in found {
                    reasons.append(
                        Reason(
                            "URL_ALLOWLISTED", .allow, info, entry,
                            message: "\(entry.key)[\(entry.index ?? 0)] '\(entry.written.stringValue)' matches"))
                }
            }
            if let auto = compiled.filter.autoFilter, auto.value { autoFilterPayloads.append((compiled, index, auto)) }
        }
        if reasons.contains(where: { $0.effect == .deny }) { return .deny }
        for info in plugins {
            reasons.append(
                Reason(
                    "PLUGIN_FILTER_ACTIVE", .conditional, info, key: "FilterType", value: .string("Plugin"),
                    position: info.position, message: "a filter plug-in decides at run time"))
        }
        var permittedEverywhere = true
        var permits: [(PayloadInfo, Setting<URLPattern>)] = []
        for (compiled, index, auto) in autoFilterPayloads {
            let info = compiled.info
            let found = matches(compiled.filter.permitted, index: index.permitted, url: url, info: info)
            if found.isEmpty {
                permittedEverywhere = false
                reasons.append(
                    Reason(
                        "AUTO_FILTER_APPLIES", .conditional, info, auto,
                        message: "the automatic adult-content filter decides at run time"))
            } else {
                permits += found.map { (info, $0) }
            }
        }
        if permittedEverywhere {
            for (info, entry) in permits {
                reasons.append(
                    Reason(
                        "PERMITTED_BYPASSES_AUTOFILTER", .allow, info, entry,
                        message:
                            "\(entry.key)[\(entry.index ?? 0)] '\(entry.written.stringValue)' bypasses the automatic filter"
                    ))
            }
        }
        if reasons.contains(where: { $0.effect == .conditional }) { return .conditional }
        if !reasons.contains(where: { $0.effect == .allow }) {
            reasons.append(Reason("DEFAULT_ALLOW", .allow, message: "no filter rule restricts \(url.normalized)"))
        }
        return .allow
    }

    mutating func decideWiFi(_ ssid: SSID, hidden: Bool) -> PolicyDecision {
        var profileNetworks: [(PayloadInfo, WiFiNetwork)] = []
        var forcing: [(PayloadInfo, Setting<Bool>)] = []
        for (_, payload) in activePayloads() {
            switch payload.content {
            case .wifiRestrictions(let restrictions):
                for entry in restrictions.denied {
                    let matched = entry.value == ssid
                    traceMatch(payload.info, key: entry.key, index: entry.index, value: entry.written, matched: matched)
                    if matched {
                        reasons.append(
                            Reason(
                                "SSID_DENYLISTED", .deny, payload.info, entry, message: "'\(ssid)' is in \(entry.key)"))
                    }
                }
                if let allowed = restrictions.allowed {
                    var found = false
                    for entry in allowed {
                        let matched = entry.value == ssid
                        traceMatch(
                            payload.info, key: entry.key, index: entry.index, value: entry.written, matched: matched)
                        if matched {
                            found = true
                            reasons.append(
                                Reason(
                                    "SSID_ALLOWLISTED", .allow, payload.info, entry,
                                    message: "'\(ssid)' is in \(entry.key)"))
                        }
                    }
                    if !found, let key = restrictions.allowedKey {
                        reasons.append(
                            Reason(
                                "SSID_NOT_ALLOWLISTED", .deny, payload.info, key: key.key, position: key.position,
                                message: "'\(ssid)' is not in the SSID allowlist"
                                    + (allowed.isEmpty ? " (empty: allows nothing)" : "")))
                    }
                }
            case .wifi(let network):
                if let configured = network.ssid {
                    let matched = configured.value == ssid
                    traceMatch(payload.info, key: "SSID_STR", index: nil, value: configured.written, matched: matched)
                    if matched { profileNetworks.append((payload.info, network)) }
                }
            case .restrictions(let restrictions):
                if let setting = restrictions.booleans["forceWiFiToAllowedNetworksOnly"], setting.value {
                    forcing.append((payload.info, setting))
                }
            default: break
            }
        }
        if !forcing.isEmpty && profileNetworks.isEmpty {
            for (info, setting) in forcing {
                reasons.append(
                    Reason(
                        "NOT_PROFILE_NETWORK", .deny, info, setting,
                        message: "\(setting.key) is true and no active Wi-Fi payload configures '\(ssid)'"))
            }
        }
        for (info, network) in profileNetworks {
            if let configured = network.ssid {
                reasons.append(
                    Reason(
                        "PROFILE_NETWORK", .allow, info, configured,
                        message: "'\(ssid)' is configured by \(info.identifier)"))
            }
        }
        if hidden, !profileNetworks.isEmpty, !profileNetworks.contains(where: { $0.1.hidden?.value == true }) {
            advisories.append(
                Advisory(
                    code: "ADV_HIDDEN_NOT_CONFIGURED",
                    message: "no Wi-Fi payload for '\(ssid)' sets HIDDEN_NETWORK: the device will not probe for it",
                    payload: nil))
        }
        if reasons.contains(where: { $0.effect == .deny }) { return .deny }
        if !reasons.contains(where: { $0.effect == .allow }) {
            reasons.append(Reason("DEFAULT_ALLOW", .allow, message: "no Wi-Fi rule restricts '\(ssid)'"))
        }
        return .allow
    }

    mutating func decideVPN(into fields: inout [(String, JSONValue)]) -> PolicyDecision {
        // Strength: 3 enforced, 2 conditional, 1 optional.
        var strongest: (strength: Int, info: PayloadInfo, mode: String)? = nil
        for (_, payload) in activePayloads() {
            guard case .vpn(let vpn) = payload.content else { continue }
            let info = payload.info
            var contribution: (Int, String)? = nil
            /// The reason a setting gives, and how strongly it makes the VPN required (3 enforced, 2 conditional, 1
            /// optional) in which mode.
            func decide<Value>(
                _ code: String, _ effect: Effect, _ setting: Setting<Value>, _ message: String, _ strength: Int,
                _ mode: String
            ) {
                reasons.append(Reason(code, effect, info, setting, message: message))
                contribution = (strength, mode)
            }
            if vpn.type.value == "AlwaysOn" {
                if let toggle = vpn.uiToggleEnabled, toggle.value == 1 {
                    decide(
                        "ALWAYS_ON_USER_CAN_DISABLE", .info, toggle, "the user can turn the always-on VPN off", 1,
                        "always-on")
                } else {
                    decide(
                        "ALWAYS_ON_ENFORCED", .require, vpn.type, "always-on VPN: all traffic goes through the tunnel",
                        3, "always-on")
                }
            } else if vpn.type.value == "IKEv2" || vpn.type.value == "VPN", let enabled = vpn.onDemandEnabled,
                enabled.value == 1, let all = vpn.includeAllNetworks, all.value == 1
            {
                if let rules = vpn.onDemandRules {
                    decide(
                        "ON_DEMAND_RULES_NOT_EVALUATED", .conditional, rules, "on-demand rules decide at run time", 2,
                        "on-demand")
                } else if let override = vpn.overrideDisabled, override.value == 1 {
                    decide(
                        "ON_DEMAND_ALL_ENFORCED", .require, override,
                        "on-demand VPN for all networks, user override disabled", 3, "on-demand")
                } else {
                    decide(
                        "ON_DEMAND_USER_OVERRIDABLE", .info, enabled,
                        "on-demand VPN for all networks, but the user can override it", 1, "on-demand")
                }
            } else if tracing {
                trace.append(
                    TraceEntry(
                        step: .rule, payload: info, key: "VPNType", index: nil, value: vpn.type.written,
                        result: "none", note: "this VPN payload does not make a VPN required"))
            }
            if let (strength, mode) = contribution {
                let stronger =
                    strongest.map {
                        strength > $0.strength || (strength == $0.strength && PayloadInfo.ordered(info, $0.info))
                    } ?? true
                if stronger { strongest = (strength, info, mode) }
            }
        }
        let required: JSONValue
        switch strongest?.strength {
        case 3: required = .bool(true)
        case 2: required = .string("conditional")
        default: required = .bool(false)
        }
        if reasons.isEmpty {
            reasons.append(Reason("NO_VPN_REQUIREMENT", .info, message: "no active VPN payload requires a VPN"))
        }
        let userCanDisable: JSONValue = strongest == nil ? .null : .bool(required == .bool(false))
        fields = [
            ("required", required), ("mode", strongest.map { .string($0.mode) } ?? .null),
            ("userCanDisable", userCanDisable),
        ]
        return strongest?.strength == 2 ? .conditional : .ok
    }
}

extension JSONValue {
    /// The text of a string value; other values serialised.
    var stringValue: String {
        if case .string(let text) = self { return text }
        return serialized(pretty: false)
    }
}
