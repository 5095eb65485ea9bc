import MDMDiagnostics

/// Kiosk, app, ASAM and restriction questions (*Device policies*).
extension Evaluation {
    /// The effective App Lock: active lock payloads and the distinct apps they name.
    struct KioskState {
        var locks: [(info: PayloadInfo, lock: AppLock)] = []
        /// Distinct lock apps (lowercase key → spelling of the first payload in identifier order).
        var apps: [String: String] = [:]

        var isLocked: Bool { !locks.isEmpty }
        var isConflict: Bool { apps.count > 1 }
        var candidates: [String] { apps.keys.sorted(by: String.utf8Less).compactMap { apps[$0] } }
    }

    func kioskState() -> KioskState {
        var state = KioskState()
        for (_, payload) in activePayloads() {
            if case .appLock(let lock) = payload.content { state.locks.append((payload.info, lock)) }
        }
        state.locks.sort { PayloadInfo.ordered($0.info, $1.info) }
        for (_, lock) in state.locks where state.apps[BundleID.key(lock.app.value)] == nil {
            state.apps[BundleID.key(lock.app.value)] = lock.app.value
        }
        return state
    }

    mutating func decideKiosk(into fields: inout [(String, JSONValue)]) -> PolicyDecision {
        let state = kioskState()
        var decision = PolicyDecision.ok
        var options: JSONValue = .null
        var userEnabled: JSONValue = .null
        var app: JSONValue = .null
        if !state.isLocked {
            reasons.append(Reason("KIOSK_NONE", .info, message: "no active App Lock payload: not locked"))
        } else if state.isConflict {
            decision = .indeterminate
            let names = state.candidates.joined(separator: ", ")
            for (info, lock) in state.locks {
                reasons.append(
                    Reason(
                        "KIOSK_CONFLICT", .indeterminate, info, lock.app,
                        message: "App Lock payloads name different apps: \(names)"))
            }
        } else {
            app = .string(state.candidates[0])
            var forced: [String: Bool] = [:]
            var toggles: [String: Bool] = [:]
            for key in AppLock.optionKeys { forced[key] = state.locks.contains { $0.lock.options[key]?.value == true } }
            for key in AppLock.userEnabledKeys {
                toggles[key] = state.locks.allSatisfy { $0.lock.userEnabledOptions[key]?.value == true }
                if toggles[key] == true, forced["Enable\(key)"] == true { toggles[key] = false }
            }
            options = .object(AppLock.optionKeys.map { ($0, .bool(forced[$0] ?? false)) })
            userEnabled = .object(AppLock.userEnabledKeys.map { ($0, .bool(toggles[$0] ?? false)) })
            for (info, lock) in state.locks {
                reasons.append(Reason("KIOSK_ACTIVE", .info, info, lock.app, message: "locked to \(lock.app.value)"))
            }
        }
        fields = [
            ("locked", .bool(state.isLocked)), ("app", app),
            ("candidates", .array(state.candidates.map { .string($0) })),
            ("options", options), ("userEnabledOptions", userEnabled),
        ]
        return decision
    }

    mutating func decideApp(_ app: String) -> PolicyDecision {
        let key = BundleID.key(app)
        let state = kioskState()
        if state.isLocked {
            let inside = state.apps[key] != nil
            for (info, lock) in state.locks {
                if state.isConflict {
                    reasons.append(
                        inside
                            ? Reason(
                                "KIOSK_CONFLICT", .indeterminate, info, lock.app,
                                message: "App Lock payloads conflict (\(state.candidates.joined(separator: ", ")))")
                            : Reason(
                                "KIOSK_LOCKED", .deny, info, lock.app,
                                message: "the device is locked to \(state.candidates.joined(separator: " or "))"))
                } else if inside {
                    reasons.append(Reason("KIOSK_APP", .allow, info, lock.app, message: "\(app) is the App Lock app"))
                } else {
                    reasons.append(
                        Reason(
                            "KIOSK_LOCKED", .deny, info, lock.app, message: "the device is locked to \(lock.app.value)")
                    )
                }
            }
        }
        appListRules(app, key: key)
        if reasons.contains(where: { $0.effect == .deny }) { return .deny }
        if reasons.contains(where: { $0.effect == .indeterminate }) { return .indeterminate }
        if !reasons.contains(where: { $0.effect == .allow }) {
            reasons.append(Reason("DEFAULT_ALLOW", .allow, message: "no rule restricts \(app)"))
        }
        return .allow
    }

    /// Rules 2–4 of 7.2 over the active payloads.
    mutating func appListRules(_ app: String, key: String) {
        var log: [TraceEntry]? = tracing ? [] : nil
        reasons += Self.appListReasons(app, payloads: activePayloads().map(\.1), trace: &log)
        trace += log ?? []
    }

    /// Rules 2–4 of 7.2: blocked lists, allowlists, Safari, web clips and the App Store; every entry tested is
    /// logged to `trace` when it is not nil.
    static func appListReasons(
        _ app: String, payloads: some Sequence<Payload>, trace: inout [TraceEntry]?
    ) -> [Reason] {
        let key = BundleID.key(app)
        var reasons: [Reason] = []
        func test(_ entry: Setting<String>, _ info: PayloadInfo, _ trace: inout [TraceEntry]?) -> Bool {
            let matched = BundleID.key(entry.value) == key
            trace?.append(
                TraceEntry(
                    step: .match, payload: info, key: entry.key, index: entry.index, value: entry.written,
                    result: matched ? "match" : "no match", note: nil))
            return matched
        }
        for payload in payloads {
            guard case .restrictions(let restrictions) = payload.content else { continue }
            for entry in restrictions.blockedApps?.entries ?? [] where test(entry, payload.info, &trace) {
                reasons.append(
                    Reason("APP_DENYLISTED", .deny, payload.info, entry, message: "\(app) is in \(entry.key)"))
            }
            if let allowed = restrictions.allowListedApps {
                let found = allowed.entries.filter { test($0, payload.info, &trace) }
                for entry in found {
                    reasons.append(
                        Reason("APP_ALLOWLISTED", .allow, payload.info, entry, message: "\(app) is in \(entry.key)"))
                }
                if found.isEmpty {
                    reasons.append(
                        Reason(
                            "APP_NOT_ALLOWLISTED", .deny, payload.info, key: allowed.key, position: allowed.position,
                            message:
                                "\(app) is not in \(allowed.key)\(allowed.entries.isEmpty ? " (empty: allows nothing)" : "")"
                        ))
                }
            }
            let rules: [(String, [String], String)] = [
                ("com.apple.mobilesafari", ["allowSafari"], "SAFARI_DISABLED"),
                ("com.apple.webapp", ["allowSafari"], "WEBCLIPS_DISABLED"),
                ("com.apple.appstore", ["allowAppInstallation", "allowUIAppInstallation"], "APP_STORE_DISABLED"),
            ]
            for (bundle, keys, code) in rules where key == bundle {
                for restriction in keys {
                    if let setting = restrictions.booleans[restriction], setting.value == false {
                        reasons.append(Reason(code, .deny, payload.info, setting, message: "\(setting.key) is false"))
                    }
                }
            }
        }
        return reasons
    }

    mutating func decideASAM(_ app: String) -> PolicyDecision {
        let key = BundleID.key(app)
        let appDecision = decideApp(app)
        reasons.removeAll { $0.effect == .allow }
        var listed = false
        for (_, payload) in activePayloads() {
            guard case .restrictions(let restrictions) = payload.content, let list = restrictions.asamApps else {
                continue
            }
            listed = true
            var found = false
            for entry in list.entries {
                let matched = BundleID.key(entry.value) == key
                traceMatch(payload.info, key: entry.key, index: entry.index, value: entry.written, matched: matched)
                if matched {
                    found = true
                    reasons.append(
                        Reason("ASAM_PERMITTED", .allow, payload.info, entry, message: "\(app) is in \(entry.key)"))
                }
            }
            if !found {
                reasons.append(
                    Reason(
                        "ASAM_NOT_PERMITTED", .deny, payload.info, key: list.key, position: list.position,
                        message: "\(app) is not in \(list.key)"))
            }
        }
        if !listed {
            reasons.append(
                Reason("ASAM_DEFAULT_DENY", .deny, message: "no payload permits apps to enter single-app mode"))
        }
        if reasons.contains(where: { $0.effect == .deny }) { return .deny }
        return appDecision == .indeterminate ? .indeterminate : .allow
    }
}
