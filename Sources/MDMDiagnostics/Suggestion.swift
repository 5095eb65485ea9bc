/// "Did you mean" for names: a case-insensitive match first, then the closest by edit distance.
public enum Suggestion {
    /// The candidate closest to `name`, if one is close enough to be a likely typo.
    public static func closest(to name: String, in candidates: [String]) -> String? {
        let start = name.firstIndex { !$0.isWhitespace } ?? name.endIndex
        let end = name[start...].lastIndex { !$0.isWhitespace }.map { name.index(after: $0) } ?? start
        let lowered = name[start..<end].lowercased()
        if let exact = candidates.first(where: { $0.lowercased() == lowered && $0 != name }) { return exact }
        let limit = max(1, min(3, name.count / 3))
        var best: String?
        var bestDistance = Int.max
        for candidate in candidates where candidate != name {
            let distance = editDistance(lowered, candidate.lowercased(), limit: limit)
            if distance <= limit, distance < bestDistance { (best, bestDistance) = (candidate, distance) }
        }
        return best
    }

    /// Levenshtein distance, giving up (returning limit + 1) once it must exceed `limit`.
    static func editDistance(_ a: String, _ b: String, limit: Int) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        if abs(a.count - b.count) > limit { return limit + 1 }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...max(1, a.count) where !a.isEmpty {
            current[0] = i
            var rowMinimum = current[0]
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                rowMinimum = min(rowMinimum, current[j])
            }
            if rowMinimum > limit { return limit + 1 }
            swap(&previous, &current)
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
