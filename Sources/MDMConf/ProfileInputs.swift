import DevicePolicy
import MDMDiagnostics
import PropertyList

/// The `--profile` paths of the policy commands (*Device policies*): files as given, a folder adds its
/// `*.mobileconfig` and `*.plist` files and the `*.json` files that hold a declarative-management declaration (not
/// recursive, extension case-insensitive, dot-files skipped) sorted by file-name bytes; `-` is standard input.
public enum ProfileInputs {
    /// The files `paths` name, in order: files (and `-`) as given, folders replaced by their candidate profiles;
    /// `ifDeclaration` marks a folder's JSON file, a profile only when it holds a declaration
    /// (`document(_:file:loader:ifDeclaration:)` decides when it is read).
    public static func listing(_ paths: [String]) -> [(path: String, ifDeclaration: Bool)] {
        var result: [(path: String, ifDeclaration: Bool)] = []
        for path in paths {
            guard path != "-", InputPaths.isDirectory(path) else {
                result.append((path, false))
                continue
            }
            var names: [(name: String, json: Bool)] = []
            for name in InputPaths.entries(of: path) {
                guard !name.hasPrefix("."), let dot = name.lastIndex(of: ".") else { continue }
                let ext = name[name.index(after: dot)...].lowercased()
                let full = path.hasSuffix("/") ? path + name : path + "/" + name
                guard ext == "mobileconfig" || ext == "plist" || ext == "json", InputPaths.isFile(full) else {
                    continue
                }
                names.append((name, ext == "json"))
            }
            result += names.sorted { $0.name.utf8Precedes($1.name) }.map {
                (path.hasSuffix("/") ? path + $0.name : path + "/" + $0.name, $0.json)
            }
        }
        return result
    }

    /// The profile document in `bytes` (read from `file`); nil with `ifDeclaration` when it is not a
    /// declarative-management declaration (an object with `Type`, `Identifier` and `Payload`): a folder's other JSON
    /// files are not profiles. The bytes are parsed once either way.
    static func document(_ bytes: [UInt8], file: String, loader: ProfileLoader, ifDeclaration: Bool)
        -> ProfileDocument?
    {
        guard ifDeclaration else { return loader.load(bytes, file: file) }
        let document = PropertyListReader(options: loader.readerOptions).read(bytes, file: file)
        return isDeclaration(document) ? loader.load(document) : nil
    }

    private static func isDeclaration(_ document: PlistDocument) -> Bool {
        guard let root = document.root, case .dictionary(let dict) = root.value else { return false }
        return dict["Type"] != nil && dict["Identifier"] != nil && dict["Payload"] != nil
    }

    /// Loads every document in order; the first unreadable path throws (exit 66).
    public static func load(_ paths: [String], options: PlistReaderOptions = PlistReaderOptions()) throws(InputError)
        -> [ProfileDocument]
    {
        let loader = ProfileLoader(readerOptions: options)
        var documents: [ProfileDocument] = []
        for (path, ifDeclaration) in listing(paths) {
            guard ifDeclaration else {
                documents.append(try loader.load(path: path))
                continue
            }
            // A JSON file of a folder that cannot be read, or is too large, is not a declaration either.
            guard case .bytes(let bytes)? = try? InputFile.read(path, limit: options.maxInputSize),
                let document = document(bytes, file: path, loader: loader, ifDeclaration: true)
            else { continue }
            documents.append(document)
        }
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
