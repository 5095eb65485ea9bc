import PropertyList

/// Apple's schema of a payload type with what a ProfileManifest of the same type knows besides.
///
/// Apple's YAML is exact about types, allowed values and the OS, enrollment and supervision each key needs; the
/// community's manifests add the conditions between keys (`ProxyServer` is required when `ProxyType` is `Manual`),
/// titles and descriptions, the titles of allowed values, and keys Apple's copy does not list yet. ``adding(hintsOf:)``
/// keeps everything Apple's schema says and adds only that.
extension ConfigSchema {
    /// This schema, Apple's, with the hints of `manifest`, a ProfileManifest of the same payload type:
    /// - every key of both keeps Apple's type, presence, default, allowed values, bounds and availability, and gains
    ///   the manifest's conditions (`pfm_conditionals`, `pfm_exclude`), its title and description where Apple's has
    ///   none, the titles of the allowed values both list, and its `sensitive` mark;
    /// - a key only the manifest lists is added as the manifest describes it (with the OS versions it gives), except
    ///   the top-level `Payload…` keys, which Apple describes once for every payload (`CommonPayloadKeys`);
    /// - the schema's own title and description are Apple's, or the manifest's where Apple's has none.
    ///
    /// ``hints`` names the manifest afterwards.
    public func adding(hintsOf manifest: ConfigSchema) -> ConfigSchema {
        var merged = self
        merged.hints = manifest.reference
        if merged.title == nil { merged.title = manifest.title }
        if merged.description == nil { merged.description = manifest.description }
        merged.keys = Self.addingHints(to: keys, from: manifest.root, topLevel: true)
        return merged
    }

    private static func addingHints(to keys: [KeySpec], from manifest: KeySpec, topLevel: Bool) -> [KeySpec] {
        var keys = keys
        var named = Set<String>(minimumCapacity: keys.count)
        for index in keys.indices {
            named.insert(keys[index].name)
            if let hint = manifest.child(keys[index].name) { addHints(to: &keys[index], from: hint) }
        }
        for extra in manifest.children ?? [] where !named.contains(extra.name) {
            if topLevel && extra.name.hasPrefix("Payload") { continue }
            named.insert(extra.name)
            keys.append(extra)
        }
        return keys
    }

    private static func addHints(to key: inout KeySpec, from hint: KeySpec) {
        if key.title == nil { key.title = hint.title }
        if key.description == nil { key.description = hint.description }
        key.requiredWhen += hint.requiredWhen
        key.excludedWhen += hint.excludedWhen
        key.sensitive = key.sensitive || hint.sensitive
        if var values = key.allowedValues, let titled = hint.allowedValues {
            for index in values.indices where values[index].title == nil {
                values[index].title = titled.first { $0.value == values[index].value }?.title
            }
            key.allowedValues = values
        }
        if let children = key.children, hint.children != nil {
            key.children = addingHints(to: children, from: hint, topLevel: false)
        }
        if key.items.count == 1, hint.items.count == 1 { addHints(to: &key.items[0], from: hint.items[0]) }
        if key.additionalValue.count == 1, hint.additionalValue.count == 1 {
            addHints(to: &key.additionalValue[0], from: hint.additionalValue[0])
        }
    }
}
