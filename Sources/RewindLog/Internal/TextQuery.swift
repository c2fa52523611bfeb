import Foundation

/// Turns what a user typed into an FTS5 query that cannot be misread as FTS5 syntax.
package enum TextQuery {
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

extension TextQuery {
    /// The document a team store indexes for an event's action, and matches against: the JSON
    /// text with every run of characters that are not letters or digits turned into a space, so
    /// PostgreSQL's parser sees plain words (it would otherwise keep `ada@example.com` or
    /// `a-b` whole) and splits where FTS5 does. RewindPostgres's GIN index is on this very
    /// expression (`column` = `action`), so the planner can use it.
    package static func postgresDocument(_ column: String) -> String {
        "to_tsvector('simple', regexp_replace(\(column), '[^[:alnum:]]+', ' ', 'g'))"
    }

    /// The words as a PostgreSQL `tsquery` for `to_tsquery('simple', …)`: each word's tokens
    /// must follow one another (`<->`), and the words are ANDed, as in ``fts5(_:)``. A word is
    /// split where FTS5's tokenizer splits (any character that is not a letter or digit), so no
    /// character of the user's can be read as tsquery syntax. `nil` when there is no token.
    static func tsquery(_ text: String) -> String? {
        var phrases: [String] = []
        for word in text.split(whereSeparator: { $0.isWhitespace }) {
            let tokens = word.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map { $0.lowercased() }
            guard !tokens.isEmpty else { continue }
            phrases.append("(" + tokens.map { "'" + $0 + "'" }.joined(separator: " <-> ") + ")")
        }
        return phrases.isEmpty ? nil : phrases.joined(separator: " & ")
    }

    /// SQLite's GLOB (`*`, `?`, `[…]`, `[^…]`, case-sensitive, whole string) as an anchored POSIX
    /// regular expression with the same meaning.
    static func globRegex(_ glob: String) -> String {
        var regex = "^"
        var characters = Array(glob)[...]
        while let character = characters.popFirst() {
            switch character {
            case "*": regex += ".*"
            case "?": regex += "."
            case "[":
                // A class runs to the first `]` after its first member; without one, `[` is literal.
                var body = characters
                var members = ""
                if body.first == "^" { members += "^"; body = body.dropFirst() }
                if body.first == "]" { members += "\\]"; body = body.dropFirst() }
                guard let close = body.firstIndex(of: "]") else { regex += "\\["; continue }
                for member in body[..<close] { members += member == "\\" ? "\\\\" : String(member) }
                regex += "[" + members + "]"
                characters = body[(close + 1)...]
            default:
                regex += "^$.|?*+()[]{}\\".contains(character) ? "\\" + String(character) : String(character)
            }
        }
        return regex + "$"
    }
}
