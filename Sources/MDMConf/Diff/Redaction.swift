import ConfigSchema
import MDMDiagnostics
import PropertyList

/// Sensitive values replaced before a configuration is shown to a person (the admin page's "as served to device
/// D", like `mdmconf diff`): a key the schema marks sensitive, or whose name says it is a secret
/// (`PlistDiff.looksSecret`), shows `<redacted>` whatever its type; containers under it are not opened.
public enum Redaction {
    /// What a redacted value shows.
    public static let placeholder = "<redacted>"

    /// `value` with every sensitive key's value replaced.
    public static func redact(_ value: PlistValue, schema: ConfigSchema?) -> PlistValue {
        redact(value, at: .root) { path in (schema?.isSensitive(path) ?? false) || PlistDiff.looksSecret(path) }
    }

    static func redact(_ value: PlistValue, at path: KeyPath, isSensitive: (KeyPath) -> Bool) -> PlistValue {
        if !path.isRoot, isSensitive(path) { return .string(placeholder) }
        switch value {
        case .dictionary(var dictionary):
            for index in dictionary.entries.indices {
                let entry = dictionary.entries[index]
                dictionary.entries[index].value.value = redact(
                    entry.value.value, at: path.appending(key: entry.key), isSensitive: isSensitive)
            }
            return .dictionary(dictionary)
        case .array(var items):
            for index in items.indices {
                items[index].value = redact(
                    items[index].value, at: path.appending(index: index), isSensitive: isSensitive)
            }
            return .array(items)
        default:
            return value
        }
    }
}
