import ConfigSchema
import DevicePolicy
import MDMDiagnostics
import PropertyList

/// The keys a `restriction` question may name beyond those the policy engine evaluates itself, described by Apple's
/// schemas on the search path.
enum RestrictionKeys {
    /// A key described, or why none is.
    enum Resolution {
        case key(RestrictionKey)
        case refused(Diagnostic)
    }

    /// What Apple's schemas on the search path say of `argument`: a key of the restrictions payload (`allowCamera`),
    /// or `TYPE.KEY` of a payload or declaration type (`com.apple.configuration.passcode.settings.MinimumLength`,
    /// a nested key as `TYPE.Parent.Key`). A refusal when no schema describes it, with the closest key as a hint when
    /// the restrictions schema is there.
    static func resolve(_ argument: String, discovery: SchemaDiscovery) -> Resolution {
        let schemas = SchemaCache(discovery: discovery, loader: SchemaLoader())
        let restrictions = schemas.schema(Payload.restrictionsType)
        if let restrictions, let spec = restrictions.root.child(argument) {
            return .key(describe(spec, type: Payload.restrictionsType, path: [argument]))
        }
        let components = argument.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // The longest type that a schema declares: declaration types hold dots, and so may a key path after them.
        for split in stride(from: components.count - 1, through: 1, by: -1) {
            let type = components[..<split].joined(separator: ".")
            guard let schema = schemas.schema(type) else { continue }
            let path = Array(components[split...])
            var spec: KeySpec? = schema.root
            for name in path { spec = spec?.child(name) }
            guard let spec else {
                let names = schema.keys.map(\.name)
                return .refused(
                    unknown(
                        argument, message: "'\(path.joined(separator: "."))' is not a key of \(type)",
                        hint: Suggestion.closest(to: path.last ?? "", in: names).map { "did you mean '\(type).\($0)'?" }
                    ))
            }
            return .key(describe(spec, type: type, path: path))
        }
        guard let restrictions else {
            return .refused(
                unknown(
                    argument, message: "'\(argument)' is not an evaluated restriction key",
                    hint: "without a checkout of apple/device-management on MDMCONF_SCHEMA_PATH only these are: "
                        + (Restrictions.andKeys + Restrictions.orKeys + Restrictions.listKeys).joined(separator: " ")))
        }
        let names = restrictions.keys.map(\.name)
        return .refused(
            unknown(
                argument,
                message: "'\(argument)' is not a key of Apple's restrictions payload, nor TYPE.KEY of a known type",
                hint: Suggestion.closest(to: argument, in: names).map { "did you mean '\($0)'?" }))
    }

    private static func unknown(_ argument: String, message: String, hint: String?) -> Diagnostic {
        Diagnostic(DevicePolicyCode.unknownRestrictionKey, severity: .error, message: message, hint: hint)
    }

    /// The key as the policy engine combines it: by its `combinetype` when Apple's schema gives one; a key of the
    /// restrictions payload by Apple's documented most-restrictive rule; any other by agreement.
    static func describe(_ spec: KeySpec, type: String, path: [String]) -> RestrictionKey {
        let rule: CombineRule?
        let source: String
        if let text = spec.apple?.combineType {
            rule = CombineRule(rawValue: text)
            source =
                rule == nil
                ? "Apple's schema names combinetype '\(text)', which mdmconf does not know: the values must agree"
                : "combinetype in Apple's schema"
        } else if type == Payload.restrictionsType,
            let restrictive = RestrictionKey.mostRestrictive(
                spec.name, type: spec.types.count == 1 ? spec.types[0].rawValue : "")
        {
            (rule, source) = (restrictive.rule, restrictive.reason)
        } else if type == Payload.restrictionsType {
            rule = nil
            source = "most restrictive, which has no order for this key's values: they must agree"
        } else {
            rule = nil
            source = "no combinetype in Apple's schema: the values must agree"
        }
        return RestrictionKey(
            payloadType: type, path: path, rule: rule, ruleSource: source, defaultValue: spec.defaultValue,
            allowed: spec.allowedValues?.map(\.value) ?? [])
    }
}

/// A policy question made ready for the engine with what Apple's schemas say of its restriction key.
extension PolicyQuery {
    /// The query ready for the policy engine: a `restriction` question about a key the engine does not evaluate itself
    /// carries the key and its rule from Apple's schema found through `discovery` (its `restrictionKey`), or
    /// is refused (MC5106) when no schema describes the key. Any other query is returned as it is. The command line,
    /// the server's `/v1/policy/evaluate` and the admin page's what-if all ask through this.
    public func resolvingRestrictionKey(discovery: SchemaDiscovery = .standard()) -> (
        query: PolicyQuery, refusal: Diagnostic?
    ) {
        guard kind == .restriction, restrictionKey == nil, let argument, !Restrictions.evaluates(argument) else {
            return (self, nil)
        }
        switch RestrictionKeys.resolve(argument, discovery: discovery) {
        case .key(let key):
            var query = self
            query.restrictionKey = key
            return (query, nil)
        case .refused(let refusal): return (self, refusal)
        }
    }
}
