/// GitHub Actions workflow commands: `::error file=...,line=...,col=...,title=...::message`.
public struct GitHubRenderer: Sendable {
    /// The renderer (it has no options).
    public init() {}

    /// One workflow command per finding, each on its own line.
    public func render(_ report: DiagnosticReport) -> String {
        var out = ""
        for file in report.files {
            for diagnostic in file.diagnostics {
                out.append(render(diagnostic))
                out.append("\n")
            }
        }
        return out
    }

    /// The workflow command of one finding (`::error`, `::warning` or `::notice`).
    public func render(_ diagnostic: Diagnostic) -> String {
        let command: String
        switch diagnostic.severity {
        case .error: command = "error"
        case .warning: command = "warning"
        case .info: command = "notice"
        }
        var properties: [String] = []
        if let location = diagnostic.location {
            properties.append("file=\(Self.escapeProperty(location.file))")
            if let line = location.position.line {
                properties.append("line=\(line)")
                if let column = location.position.column { properties.append("col=\(column)") }
            }
        }
        properties.append("title=\(Self.escapeProperty("\(diagnostic.code.code) \(diagnostic.code.name)"))")
        var message = diagnostic.message
        if let keyPath = diagnostic.keyPath { message += "\nkey path: \(keyPath)" }
        if let hint = diagnostic.hint { message += "\nhint: \(hint)" }
        return "::\(command) \(properties.joined(separator: ","))::\(Self.escapeData(message))"
    }

    /// Escaping of a command's message, as the Actions toolkit does it.
    static func escapeData(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "%": out.append("%25")
            case "\r": out.append("%0D")
            case "\n": out.append("%0A")
            case "\r\n": out.append("%0D%0A")
            default: out.append(character)
            }
        }
        return out
    }

    /// Escaping of a command's property value: as a message, plus `:` and `,`.
    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingAll(":", with: "%3A").replacingAll(",", with: "%2C")
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out.append(replacement) } else { out.append(character) } }
        return out
    }
}
