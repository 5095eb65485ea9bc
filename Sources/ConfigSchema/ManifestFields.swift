import PropertyList

/// The `pfm_` keys a declaration's import reads, found in one pass over its dict. Reading them one by one
/// (`dict["pfm_…"]`, a linear search each) cost about 30 searches per declaration, most of them misses — a tenth of
/// linting a ProfileManifests checkout.
struct ManifestFields {
    enum Field: Int, CaseIterable {
        case type, title, description, require, required, sensitive, valueUnique, defaultValue, rangeMin, rangeMax
        case repetitionMin, repetitionMax, format, rangeList, rangeListTitles, rangeListAllowCustomValue
        case conditionals, exclude, platforms, appDeprecated, subkeys

        var key: String {
            switch self {
            case .type: "pfm_type"
            case .title: "pfm_title"
            case .description: "pfm_description"
            case .require: "pfm_require"
            case .required: "pfm_required"
            case .sensitive: "pfm_sensitive"
            case .valueUnique: "pfm_value_unique"
            case .defaultValue: "pfm_default"
            case .rangeMin: "pfm_range_min"
            case .rangeMax: "pfm_range_max"
            case .repetitionMin: "pfm_repetition_min"
            case .repetitionMax: "pfm_repetition_max"
            case .format: "pfm_format"
            case .rangeList: "pfm_range_list"
            case .rangeListTitles: "pfm_range_list_titles"
            case .rangeListAllowCustomValue: "pfm_range_list_allow_custom_value"
            case .conditionals: "pfm_conditionals"
            case .exclude: "pfm_exclude"
            case .platforms: "pfm_platforms"
            case .appDeprecated: "pfm_app_deprecated"
            case .subkeys: "pfm_subkeys"
            }
        }
    }

    private static let fieldsByKey = Dictionary(uniqueKeysWithValues: Field.allCases.map { ($0.key, $0) })

    let dict: PlistDictionary
    /// The index in `dict.entries` of each field's entry, -1 when absent.
    private var slots = SIMD32<Int16>(repeating: -1)

    init(_ dict: PlistDictionary) {
        self.dict = dict
        for (index, entry) in dict.entries.enumerated() where index < Int(Int16.max) && entry.key.hasPrefix("pfm_") {
            if let field = Self.fieldsByKey[entry.key], slots[field.rawValue] < 0 {
                slots[field.rawValue] = Int16(index)
            }
        }
    }

    subscript(_ field: Field) -> PlistDictionary.Entry? {
        let index = Int(slots[field.rawValue])
        return index < 0 ? nil : dict.entries[index]
    }

    /// The field's value when it is a string.
    func string(_ field: Field) -> String? {
        if case .string(let text)? = self[field]?.value.value { return text }
        return nil
    }
}
