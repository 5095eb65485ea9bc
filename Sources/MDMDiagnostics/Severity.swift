/// How serious a finding is.
///
/// Ordered from least to most serious, so `max()` over a list gives the worst one.
public enum Severity: String, Sendable, Codable, Hashable, Comparable, CaseIterable {
    /// Worth knowing; never fails a run.
    case info
    /// Probably a mistake; fails a run only with `--strict`.
    case warning
    /// The input is wrong: the run exits 1.
    case error

    private var rank: Int {
        switch self {
        case .info: 0
        case .warning: 1
        case .error: 2
        }
    }

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}
