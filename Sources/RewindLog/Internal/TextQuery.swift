import Foundation

/// Turns what a user typed into an FTS5 query that cannot be misread as FTS5 syntax.
enum TextQuery {
    /// Each whitespace-separated word becomes a quoted phrase (`"` doubled inside), and the
    /// phrases are ANDed: `ada@example.com login` → `"ada@example.com" "login"`. FTS5 tokenizes
    /// inside each phrase, so `ada@example.com` matches those three tokens in a row. `nil` when
    /// there is no word.
    static func fts5(_ text: String) -> String? {
        let words = text.split(whereSeparator: { $0.isWhitespace })
        guard !words.isEmpty else { return nil }
        return words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " ")
    }
}
