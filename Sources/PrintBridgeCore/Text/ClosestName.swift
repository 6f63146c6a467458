/// "Did you mean …?" for a mistyped name: the known name nearest to it, when
/// one is near enough to be the one meant.
public enum ClosestName {
    /// The name in `known` at the fewest single-character edits (insert,
    /// delete, replace, swap two neighbours) from `name`, case ignored: at
    /// most 1 edit for names of up to 4 characters, else at most 2. Ties go
    /// to the first in `known`.
    public static func to(_ name: String, in known: [String]) -> String? {
        let typed = Array(name.lowercased())
        var best: (name: String, distance: Int)?
        for candidate in known {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            if distance <= (typed.count <= 4 ? 1 : 2), distance < best?.distance ?? .max { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Optimal string alignment distance (Damerau–Levenshtein without
    /// repeated edits of one substring).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
