import CivilTime
import DevicePolicy
import MDMConf
import PropertyList
import UpdatePolicy

extension AdminSite {
    // MARK: Update what-if

    /// The form's fields in order, with labels and examples; every one is a field of the update request.
    static let updateFields: [(name: String, label: String, placeholder: String)] = [
        ("app", "App", ""), ("version", "Version", "2.3.0"), ("build", "Build", "2300"),
        ("platform", "Platform", ""), ("osVersion", "OS version", "15.8"), ("deviceModel", "Model", "iPhone14,5"),
        ("deviceId", "Device id (rollout)", "iphone-0117"), ("channel", "Channel", "stable"),
        ("locale", "Locale", "pt-BR"), ("timeZone", "Time zone", "America/Sao_Paulo"),
        ("now", "At (RFC 3339; empty: now)", "2026-11-30T09:00:00Z"), ("deferralsUsed", "Deferrals used", "0"),
        ("enrolledAt", "Enrolled at", "2026-11-01T00:00:00Z"),
    ]

    static let platforms = ["ios", "ipados", "macos", "tvos", "visionos", "watchos"]

    /// The update what-if page: with `values` holding at least a version, the decision the catalog's evaluator
    /// makes for that request, with the trace of every policy (`update-check --explain`).
    public func update(values: [String: String], _ snapshot: CatalogSnapshot, chrome: AdminChrome) -> String {
        struct Option {
            var value: String
            var selected: Bool
        }
        struct Field {
            var name: String, label: String, value: String, placeholder: String, options: [Option], hasOptions: Bool
        }
        struct Result {
            var decision: String, policy: String?, target: String?, deadline: String?, localDeadline: String?
            var urgency: String, message: String?, reasons: String, text: String
        }
        struct Errors { var list: [String] }
        struct Page {
            var fields: [Field]
            var result: Result?
            var errors: Errors?
        }
        let catalog = snapshot.catalog
        let asked = values.filter { !$0.value.isEmpty }
        let fields = Self.updateFields.map { field -> Field in
            let options: [String] =
                switch field.name {
                case "app": catalog.appIDs
                case "platform": Self.platforms
                default: []
                }
            let value = values[field.name] ?? (field.name == "platform" ? "ios" : "")
            return Field(
                name: field.name, label: field.label, value: value, placeholder: field.placeholder,
                options: options.map { Option(value: $0, selected: $0 == value) }, hasOptions: !options.isEmpty)
        }
        var result: Result?
        var errors: Errors?
        if asked["version"] != nil {
            switch UpdateRequest.parse(asked.filter { UpdateRequest.fields.contains($0.key) }) {
            case .failure(let failure):
                errors = Errors(list: failure.reasons)
            case .success(let request):
                if let app = catalog.apps[request.app] {
                    let decision = app.updatePolicy.evaluate(request, now: .now, explain: true)
                    let text = DecisionText(decision, zone: request.timeZone)
                    result = Result(
                        decision: decision.decision.rawValue, policy: decision.policy, target: decision.targetVersion,
                        deadline: decision.deadline?.description,
                        localDeadline: decision.deadline.flatMap { deadline in
                            request.timeZone == nil ? nil : text.local(deadline).trimmingParentheses
                        },
                        urgency: decision.urgency.rawValue,
                        message: decision.message.map { message in
                            "[\(message.locale)] "
                                + [message.title, message.body].compactMap { $0 }.joined(separator: " — ")
                        },
                        reasons: decision.reasons.map { "\($0.policy.map { "\($0): " } ?? "")\($0.code)" }
                            .joined(separator: ", "),
                        text: text.render())
                } else {
                    errors = Errors(list: ["no app '\(request.app)' in the catalog"])
                }
            }
        }
        return render(
            "update", Page(fields: fields, result: result, errors: errors), chrome: chrome, title: "Update what-if",
            nav: "update")
    }

    // MARK: Policy what-if

    static let policyKinds: [(PolicyQuery.Kind, String)] = [
        (.url, "May this URL open?"), (.app, "May this app run?"), (.wifi, "May the device join this Wi-Fi?"),
        (.kiosk, "Is the device locked to one app?"), (.vpn, "Which VPN applies?"),
        (.restriction, "What is this restriction set to?"), (.asam, "May this app lock itself (ASAM)?"),
    ]

    /// The policy what-if page: with a question, the catalog's policy engine's answer, its deciding rules and trace.
    public func policy(values: [String: String], _ snapshot: CatalogSnapshot, chrome: AdminChrome) -> String {
        struct Kind {
            var value: String
            var label: String
            var selected: Bool
        }
        struct Reason {
            var effect: String, code: String, payload: String, place: String, message: String
        }
        struct Result {
            var decision: String, badgeClass: String, reasons: [Reason], hasReasons: Bool, text: String
        }
        struct Page {
            var profileCount: Int, kinds: [Kind], arg: String, at: String, hidden: Bool, result: Result?
            var problem: String?
        }
        let engine = snapshot.catalog.policyEngine
        let type = values["type"] ?? "url"
        let arg = values["arg"] ?? ""
        let atText = values["at"] ?? ""
        var result: Result?
        var problem: String?
        if let kind = PolicyQuery.Kind(rawValue: type), values["type"] != nil {
            var at = Instant.now
            if !atText.isEmpty {
                if let instant = PolicyQuery.instant(rfc3339: atText) {
                    at = instant
                } else {
                    problem = "'\(atText)' is not an RFC 3339 time with Z or an offset (2026-11-30T09:00:00+01:00)"
                }
            }
            let (query, refusal) = PolicyQuery(
                kind: kind, argument: arg.isEmpty ? nil : arg, hidden: values["hidden"] == "on", at: at, trace: true
            ).resolvingRestrictionKey()
            if problem == nil, let error = refusal ?? query.argumentError {
                problem = error.message
            } else if problem == nil {
                let answer = engine.evaluate(query)
                let reasons = answer.reasons.map { reason in
                    var place = reason.payload?.file ?? ""
                    if let line = reason.position?.line { place += ":\(line):\(reason.position?.column ?? 1)" }
                    return Reason(
                        effect: reason.effect.rawValue, code: reason.code,
                        payload: reason.payload.map { "\($0.profile)/\($0.identifier)" } ?? "", place: place,
                        message: reason.message)
                }
                let decision = answer.decision?.rawValue ?? "error"
                result = Result(
                    decision: decision, badgeClass: decision, reasons: reasons, hasReasons: !reasons.isEmpty,
                    text: answer.text)
            }
        }
        let page = Page(
            profileCount: engine.profileSet.documents.count,
            kinds: Self.policyKinds.map { Kind(value: $0.0.rawValue, label: $0.1, selected: $0.0.rawValue == type) },
            arg: arg, at: atText, hidden: values["hidden"] == "on", result: result, problem: problem)
        return render("policy", page, chrome: chrome, title: "Policy what-if", nav: "policy")
    }
}

extension String {
    /// ` (2026-11-30 06:00:00 America/Sao_Paulo, UTC-03:00)` → `2026-11-30 06:00:00 America/Sao_Paulo, UTC-03:00`.
    fileprivate var trimmingParentheses: String {
        var text = Substring(self)
        while text.first == " " || text.first == "(" { text = text.dropFirst() }
        while text.last == ")" { text = text.dropLast() }
        return String(text)
    }
}
