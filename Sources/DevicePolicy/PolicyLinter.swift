import MDMDiagnostics

/// The set-level lints of section 13 over every loaded payload (never-active payloads excepted): kiosk
/// conflicts, list overlaps, URL pattern surprises, SSID pitfalls, Wi-Fi lock-outs, multiple always-on VPNs.
struct PolicyLinter {
    let payloads: [Payload]
    private var lints: [PolicyFinding] = []

    init(payloads: [Payload]) {
        // A payload with an empty schedule is never active and only raises L_SCHEDULE_NEVER (at load).
        self.payloads = payloads.filter { $0.schedule.map { !$0.isEmpty } ?? true }
    }

    /// These lints plus `loadLints`, ordered by severity, code, profile, payload, key path.
    func lints(adding loadLints: [PolicyFinding]) -> [PolicyFinding] {
        var linter = self
        linter.lintLists()
        linter.lintKiosk()
        linter.lintURLPatterns()
        linter.lintWiFi()
        linter.lintVPN()
        return (linter.lints + loadLints).sorted(by: Self.ordered)
    }

    static func ordered(_ lhs: PolicyFinding, _ rhs: PolicyFinding) -> Bool {
        func rank(_ severity: Severity) -> Int { severity == .error ? 0 : severity == .warning ? 1 : 2 }
        let l = lhs.diagnostic
        let r = rhs.diagnostic
        if l.severity != r.severity { return rank(l.severity) < rank(r.severity) }
        if l.code.code != r.code.code { return l.code.code < r.code.code }
        for (a, b) in [(lhs.profile, rhs.profile), (lhs.payload, rhs.payload), (l.keyPath, r.keyPath)] where a != b {
            guard let a else { return true }
            guard let b else { return false }
            return String.utf8Less(a, b)
        }
        if l.file != r.file { return String.utf8Less(l.file ?? "", r.file ?? "") }
        return (l.line ?? 0, l.column ?? 0) < (r.line ?? 0, r.column ?? 0)
    }

    private mutating func add<Value>(
        _ lint: PolicyLint, _ info: PayloadInfo, _ setting: Setting<Value>, _ message: String, hint: String? = nil
    ) {
        let path = setting.index.map { "\(setting.key)[\($0)]" } ?? setting.key
        add(lint, info, keyPath: path, position: setting.position, message, hint: hint)
    }

    private mutating func add(
        _ lint: PolicyLint, _ info: PayloadInfo, keyPath: String?, position: SourcePosition, _ message: String,
        hint: String? = nil, severity: Severity? = nil, notes: [Diagnostic.Note] = []
    ) {
        let diagnostic = Diagnostic(
            lint.code, severity: severity ?? lint.severity, message: message,
            location: SourceLocation(file: info.file, position: position), keyPath: keyPath, hint: hint, notes: notes)
        lints.append(PolicyFinding(diagnostic, profile: info.profile, payload: info.identifier))
    }

    // MARK: - Apps

    private mutating func lintLists() {
        var spellings: [String: [(PayloadInfo, Setting<String>)]] = [:]
        var allowed: [String: [(PayloadInfo, Setting<String>)]] = [:]
        var blocked: [String: [(PayloadInfo, Setting<String>)]] = [:]
        for payload in payloads {
            switch payload.content {
            case .restrictions(let restrictions):
                for list in [restrictions.allowListedApps, restrictions.asamApps].compactMap({ $0 })
                where list.entries.isEmpty {
                    add(
                        .emptyList, payload.info, keyPath: list.key, position: list.position,
                        "'\(list.key)' is present but empty: it allows no app",
                        hint: "remove the key to have no list, or list the apps")
                }
                for list in [restrictions.allowListedApps, restrictions.blockedApps, restrictions.asamApps].compactMap({
                    $0
                }) {
                    for entry in list.entries {
                        spellings[BundleID.key(entry.value), default: []].append((payload.info, entry))
                    }
                }
                for entry in restrictions.allowListedApps?.entries ?? [] {
                    allowed[BundleID.key(entry.value), default: []].append((payload.info, entry))
                }
                for entry in restrictions.blockedApps?.entries ?? [] {
                    blocked[BundleID.key(entry.value), default: []].append((payload.info, entry))
                }
            case .appLock(let lock):
                spellings[BundleID.key(lock.app.value), default: []].append((payload.info, lock.app))
            case .webFilter(let filter):
                if let bookmarks = filter.bookmarks, bookmarks.entries.isEmpty, !filter.isPlugin {
                    add(
                        .emptyList, payload.info, keyPath: bookmarks.key, position: bookmarks.position,
                        "'\(bookmarks.key)' is present but empty: no URL can load")
                }
            case .wifiRestrictions(let restrictions):
                if let list = restrictions.allowed, list.isEmpty, let key = restrictions.allowedKey {
                    add(
                        .emptyList, payload.info, keyPath: key.key, position: key.position,
                        "the SSID allowlist is present but empty: no network can be joined")
                }
            default: break
            }
        }
        for key in spellings.keys.sorted() {
            guard let entries = spellings[key] else { continue }
            let distinct = Set(entries.map(\.1.value))
            guard distinct.count > 1, let first = entries.first else { continue }
            for (info, entry) in entries where entry.value != first.1.value {
                add(
                    .caseVariant, info, entry, "'\(entry.value)' differs from '\(first.1.value)' only by case",
                    hint: "bundle ids compare case-insensitively; spell them alike")
            }
        }
        for key in allowed.keys.sorted() where blocked[key] != nil {
            for (info, entry) in blocked[key] ?? [] {
                add(.allowDenyOverlap, info, entry, "'\(entry.value)' is both allow-listed and blocked: it is denied")
            }
        }
    }

    private mutating func lintKiosk() {
        let locks = payloads.compactMap { payload -> (PayloadInfo, AppLock, Bool)? in
            if case .appLock(let lock) = payload.content { return (payload.info, lock, payload.schedule != nil) }
            return nil
        }
        .sorted { PayloadInfo.ordered($0.0, $1.0) }
        guard !locks.isEmpty else { return }
        if locks.count > 1 {
            for (info, _, _) in locks.dropFirst() {
                add(
                    .multipleAppLock, info, keyPath: nil, position: info.position,
                    "\(locks.count) App Lock payloads: a device installs only one")
            }
        }
        let apps = Set(locks.map { BundleID.key($0.1.app.value) })
        if apps.count > 1 {
            let allScheduled = locks.allSatisfy(\.2)
            for (info, lock, _) in locks {
                add(
                    .kioskConflict, info, keyPath: "App.Identifier", position: lock.app.position,
                    "App Lock payloads name different apps (\(apps.sorted().joined(separator: ", ")))",
                    hint: allScheduled ? "the schedules must never overlap" : "lock every payload to the same app",
                    severity: allScheduled ? .warning : nil)
            }
        }
        for (info, lock, _) in locks {
            for key in AppLock.userEnabledKeys {
                let forced = locks.contains { $0.1.options["Enable\(key)"]?.value == true }
                if forced, let toggle = lock.userEnabledOptions[key], toggle.value {
                    add(
                        .kioskOptionOverlap, info, toggle,
                        "\(key) is forced (Enable\(key)) and user-toggleable: it stays forced")
                }
            }
            if let touch = lock.options["DisableTouch"], touch.value {
                let helpers = ["VoiceOver", "Zoom", "AssistiveTouch"].filter { key in
                    locks.contains {
                        $0.1.options["Enable\(key)"]?.value == true || $0.1.userEnabledOptions[key]?.value == true
                    }
                }
                if !helpers.isEmpty {
                    add(
                        .kioskTouchConflict, info, touch,
                        "DisableTouch with \(helpers.joined(separator: ", ")) enabled: the accessibility feature cannot be used"
                    )
                }
            }
        }
        // Rules 2–4 of 7.2 against every lock app, over every payload.
        for app in Set(locks.map(\.1.app.value)).sorted() {
            var noTrace: [TraceEntry]? = nil
            let denials = Evaluation.appListReasons(app, payloads: payloads, trace: &noTrace)
                .filter { $0.effect == .deny }.map { "\($0.code) (\($0.payload?.identifier ?? "?"))" }
            guard !denials.isEmpty, let (info, lock, _) = locks.first(where: { $0.1.app.value == app }) else {
                continue
            }
            add(
                .kioskAppBlocked, info, keyPath: "App.Identifier", position: lock.app.position,
                "the App Lock app \(app) is denied by \(denials.joined(separator: ", ")): the device would be locked to an unusable app"
            )
        }
    }

    // MARK: - URLs

    private mutating func lintURLPatterns() {
        let hasExceptions = payloads.contains {
            if case .webFilter(let filter) = $0.content {
                filter.bookmarks != nil || filter.permitted != nil
            } else {
                false
            }
        }
        for payload in payloads {
            guard case .webFilter(let filter) = payload.content else { continue }
            for entry in filter.denyList?.entries ?? [] {
                if let scheme = entry.value.scheme {
                    add(
                        .schemeSpecificDeny, payload.info, entry,
                        "'\(entry.written.stringValue)' denies only \(scheme.rawValue): the other scheme stays open",
                        hint: "drop the scheme to deny both")
                }
                if entry.value.host == .any, hasExceptions {
                    add(
                        .denyAllNoExceptions, payload.info, entry,
                        "'*' denies every URL: bookmarks and PermittedURLs never override a deny")
                }
            }
            for list in [filter.denyList, filter.permitted, filter.bookmarks].compactMap({ $0 }) {
                for entry in list.entries {
                    let pattern = entry.value
                    if case .domain(let name) = pattern.host, name.hasPrefix("www.") {
                        add(
                            .wwwOnlyPattern, payload.info, entry,
                            "'\(entry.written.stringValue)' does not cover \(name.dropFirst(4))",
                            hint: "write '\(name.dropFirst(4))' to cover the domain and all its subdomains")
                    }
                    if let path = pattern.path, !path.hasSuffix("/") {
                        add(
                            .pathPrefix, payload.info, entry,
                            "path '\(path)' is a string prefix: it also matches '\(path)x…'",
                            hint: "end the path with '/' to match one folder")
                    }
                    if pattern.divergesFromApple {
                        add(
                            .appleDivergence, payload.info, entry,
                            "'\(entry.written.stringValue)' uses a form Apple does not document; devices may treat it differently"
                        )
                    }
                }
            }
        }
    }

    // MARK: - Wi-Fi and VPN

    private mutating func lintWiFi() {
        var denied: [SSID: (PayloadInfo, Setting<SSID>)] = [:]
        var allowed: Set<SSID> = []
        var networks: [SSID: [(PayloadInfo, WiFiNetwork, Setting<SSID>)]] = [:]
        var forcing: [(PayloadInfo, Setting<Bool>)] = []
        for payload in payloads {
            switch payload.content {
            case .wifiRestrictions(let restrictions):
                for entry in restrictions.denied + (restrictions.allowed ?? []) { lintText(entry, payload.info) }
                for entry in restrictions.denied where denied[entry.value] == nil {
                    denied[entry.value] = (payload.info, entry)
                }
                for entry in restrictions.allowed ?? [] { allowed.insert(entry.value) }
            case .wifi(let network):
                if let ssid = network.ssid {
                    lintText(ssid, payload.info)
                    networks[ssid.value, default: []].append((payload.info, network, ssid))
                }
            case .restrictions(let restrictions):
                if let setting = restrictions.booleans["forceWiFiToAllowedNetworksOnly"], setting.value {
                    forcing.append((payload.info, setting))
                }
            default: break
            }
        }
        for ssid in denied.keys.sorted() where allowed.contains(ssid) {
            if let (info, entry) = denied[ssid] {
                add(.allowDenyOverlap, info, entry, "SSID '\(ssid)' is both allowed and denied: it is denied")
            }
        }
        for ssid in networks.keys.sorted() {
            let configured = networks[ssid] ?? []
            if let (deniedInfo, entry) = denied[ssid] {
                for (info, _, setting) in configured {
                    add(
                        .wifiConfiguredButDenied, info, setting,
                        "profile network '\(ssid)' is denied by \(deniedInfo.identifier) \(entry.key)[\(entry.index ?? 0)]",
                        hint: "profile networks are not exempt from the deny list")
                }
            }
            if let first = configured.first, configured.contains(where: { $0.1.settings != first.1.settings }) {
                for (info, _, setting) in configured.dropFirst() {
                    add(
                        .wifiDuplicateSSID, info, setting,
                        "'\(ssid)' is configured by several Wi-Fi payloads with different settings")
                }
            }
        }
        if !forcing.isEmpty && networks.isEmpty {
            for (info, setting) in forcing {
                add(
                    .wifiNoAllowedNetworks, info, setting,
                    "Wi-Fi is forced to allowed networks but no Wi-Fi payload configures one: no network can be joined",
                    hint: "add a com.apple.wifi.managed payload, or turn the flag off")
            }
        }
    }

    private mutating func lintText(_ entry: Setting<SSID>, _ info: PayloadInfo) {
        guard case .string(let text) = entry.written else { return }
        if let first = text.unicodeScalars.first, let last = text.unicodeScalars.last,
            first.properties.isWhitespace || last.properties.isWhitespace
        {
            add(
                .ssidWhitespace, info, entry,
                "SSID '\(text)' has leading or trailing white space, which is part of the name")
        }
        if text.contains("*") {
            add(.ssidWildcardLiteral, info, entry, "'*' in SSID '\(text)' is a literal character, not a wildcard")
        }
        if Array(text.utf8) != Array(text._nfcCodeUnits) {
            add(
                .ssidNotNFC, info, entry, "SSID '\(text)' is not in Unicode NFC: it matches only these exact bytes",
                hint: "use --ssid-hex in queries, or write the SSID in NFC")
        }
    }

    private mutating func lintVPN() {
        let alwaysOn = payloads.filter {
            if case .vpn(let vpn) = $0.content { vpn.type.value == "AlwaysOn" } else { false }
        }
        .map(\.info).sorted(by: PayloadInfo.ordered)
        guard alwaysOn.count > 1 else { return }
        for info in alwaysOn.dropFirst() {
            add(
                .multipleAlwaysOn, info, keyPath: "VPNType", position: info.position,
                "\(alwaysOn.count) AlwaysOn VPN payloads: a device uses only one")
        }
    }
}
