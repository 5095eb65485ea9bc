import DevicePolicy
import MDMDiagnostics
import PropertyList

/// The `--profile` paths of the policy commands (*Device policies*): files as given, a folder adds its
/// `*.mobileconfig` and `*.plist` files and the `*.json` files that hold a declarative-management declaration (not
/// recursive, extension case-insensitive, dot-files skipped) sorted by file-name bytes; `-` is standard input.
public enum ProfileInputs {
    /// The profile files `paths` name: files (and `-`) as given, folders replaced by their profiles.
    public static func expand(_ paths: [String]) -> [String] {
        var result: [String] = []
        for path in paths {
            guard path != "-", InputPaths.isDirectory(path) else {
                result.append(path)
                continue
            }
            let names = InputPaths.entries(of: path).filter { name in
                guard !name.hasPrefix("."), let dot = name.lastIndex(of: ".") else { return false }
                let ext = name[name.index(after: dot)...].lowercased()
                let full = path.hasSuffix("/") ? path + name : path + "/" + name
                guard InputPaths.isFile(full) else { return false }
                return ext == "mobileconfig" || ext == "plist" || (ext == "json" && isDeclaration(full))
            }
            result += names.sorted { $0.utf8Precedes($1) }.map {
                path.hasSuffix("/") ? path + $0 : path + "/" + $0
            }
        }
        return result
    }

    /// A JSON file holding one declarative-management declaration (an object with `Type`, `Identifier` and
    /// `Payload`): a folder's other JSON files are not profiles.
    static func isDeclaration(_ path: String) -> Bool {
        guard case .bytes(let bytes)? = try? InputFile.read(path, limit: 16 << 20),
            let root = JSONPlistReader().read(bytes, file: path).root, case .dictionary(let dict) = root.value
        else { return false }
        return dict["Type"] != nil && dict["Identifier"] != nil && dict["Payload"] != nil
    }

    /// Loads every document in order; the first unreadable path throws (exit 66).
    public static func load(_ paths: [String], options: PlistReaderOptions = PlistReaderOptions()) throws(InputError)
        -> [ProfileDocument]
    {
        let loader = ProfileLoader(readerOptions: options)
        var documents: [ProfileDocument] = []
        for path in expand(paths) { documents.append(try loader.load(path: path)) }
        return documents
    }

    /// Answers `query` over the documents at `paths`, in the check order 65, 66, 78, evaluation. An unreadable
    /// path gives an answer without a decision and exit 66.
    ///
    /// A `restriction` question about a key the engine does not evaluate itself is answered from Apple's schema of the
    /// key found through `discovery`.
    public static func answer(
        _ query: PolicyQuery, profiles paths: [String], skipInvalid: Bool,
        options: PlistReaderOptions = PlistReaderOptions(), discovery: SchemaDiscovery = .standard()
    ) -> PolicyAnswer {
        let (query, refusal) = query.resolvingRestrictionKey(discovery: discovery)
        if let refusal { return .refused(query, refusal, exit: 65) }
        if let error = query.argumentError { return .refused(query, error, exit: 65) }
        do {
            let documents = try load(paths, options: options)
            return PolicyEngine(profileSet: ProfileSet(documents: documents, skipInvalid: skipInvalid)).evaluate(query)
        } catch {
            return .refused(query, error.diagnostic, exit: 66)
        }
    }
}
