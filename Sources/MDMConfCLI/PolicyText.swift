import DevicePolicy
import MDMConfCommandSupport
import MDMDiagnostics
import PropertyList

/// Policy findings on standard error (the answer's text is `PolicyAnswer.text`).
enum PolicyText {
    /// Compiler-style findings on standard error, with the source line when the file can be read.
    static func printFindings(_ findings: [PolicyFinding]) {
        guard !findings.isEmpty else { return }
        let renderer = TextRenderer(
            options: RenderOptions(color: Console.stderrColorEnabled, sources: sources(of: findings)))
        for finding in findings { Console.error(renderer.render(finding.diagnostic)) }
    }

    static func sources(of findings: [PolicyFinding]) -> [String: SourceText] {
        var sources: [String: SourceText] = [:]
        for file in Set(findings.compactMap(\.diagnostic.file)) where sources[file] == nil {
            do {
                if case .bytes(let bytes) = try InputFile.read(file, limit: 64 * 1024 * 1024) {
                    sources[file] = SourceText(bytes)
                }
            } catch {
                continue  // the finding is still printed, without its source line
            }
        }
        return sources
    }
}
