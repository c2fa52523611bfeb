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
    /// text without its accents, with every run of characters that are not letters or digits
    /// turned into a space, so PostgreSQL's parser sees plain words (it would otherwise keep
    /// `ada@example.com` or `a-b` whole) and splits where FTS5 does. Accents go as FTS5's
    /// tokenizer drops them (`remove_diacritics`): the text in canonical decomposition (NFD)
    /// without its combining marks (U+0300 to U+036F), so `cafe` finds `Café` on both stores.
    /// RewindPostgres's GIN index is on this very expression (`column` = `action`), so the
    /// planner can use it.
    /// How much of an action a team store indexes for search: its first 128 Ki characters. A
    /// `tsvector`'s words may take at most 1 MB, and an action with more distinct words than
    /// that would be refused by the index, so never stored; 128 Ki characters are at most 512 KB
    /// of UTF-8. Words past them are not found by text search (`find` and the rest read the
    /// whole action).
    package static let postgresIndexedCharacters = 131_072

    /// The document of schemas 1 to 4, computed by PostgreSQL from the action for every row the
    /// index takes: its normalization and two regular expressions cost PostgreSQL 3.5 µs of an
    /// event's 5.5 µs of text index (issue 42). Since schema 5 only rows stored before it (whose
    /// `words` are null) are read through it, inside ``postgresDocument(alias:)``.
    package static func postgresDocumentFromAction(_ column: String) -> String {
        """
        regexp_replace(regexp_replace(normalize(left(\(column), \(postgresIndexedCharacters)), NFD), '[\\u0300-\\u036f]+', '', 'g'), '[^[:alnum:]]+', ' ', 'g')
        """
    }

    /// The text index's expression on the table `alias` (schema 5): the event's `words`, which
    /// the writer computes (``postgresWords(_:)``), or, for a row stored before schema 5, the
    /// words PostgreSQL makes of its action as before. The same text either way for the same
    /// action, as far as letters, digits and accents go (the writer reads letters and digits as
    /// Unicode does, the old expression as the database's locale does).
    package static func postgresDocument(alias: String) -> String {
        """
        to_tsvector('simple', coalesce(\(alias).words, \(postgresDocumentFromAction("\(alias).action"))))
        """
    }

    /// The text index's expression on the table `alias` since schema 6: the event's `lexemes`
    /// (``postgresLexemes(_:)``), or, for a row without them, ``postgresDocument(alias:)``
    /// (its words, or its action's words for a row stored before schema 5).
    package static func postgresLexemeDocument(alias: String) -> String {
        "coalesce(\(alias).lexemes, \(postgresDocument(alias: alias)))"
    }

    /// The words a team store indexes for an action's JSON text (its first
    /// ``postgresIndexedCharacters`` characters): without accents (canonical decomposition, less
    /// U+0300 to U+036F), lowercased, each run of characters that are not letters or digits one
    /// space, as ``tsquery(_:)`` splits and lowercases what a user types. ASCII text, most
    /// actions, is read byte by byte.
    package static func postgresWords(_ text: [UInt8]) -> [UInt8] {
        var words: [UInt8] = []
        words.reserveCapacity(text.count)
        var pendingSpace = false
        for byte in text.prefix(postgresIndexedCharacters) {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                if pendingSpace, !words.isEmpty { words.append(0x20) }
                pendingSpace = false
                words.append(byte | (byte >= UInt8(ascii: "A") ? 0x20 : 0))  // lowercase; digits unchanged
            case 0x80...:
                return Array(postgresWordsByCharacters(String(decoding: text, as: UTF8.self)).utf8)
            default:
                pendingSpace = true
            }
        }
        return words
    }

    /// The most words an action's ``postgresLexemes(_:)`` hold: below PostgreSQL's limits on a
    /// lexeme's positions (256) and on a position (16,383), so the text means what
    /// `to_tsvector` would have made.
    package static let postgresLexemeWords = 255
    /// The longest word ``postgresLexemes(_:)`` writes (`to_tsvector` leaves longer ones out).
    package static let postgresLexemeBytes = 2_046
    /// The fewest words an action's ``postgresLexemes(_:)`` hold. For fewer, the words cost
    /// PostgreSQL no more: a `tsvector` row is larger than its words, and parsing a few words is
    /// cheap (`rewind-bench --filter server-postgres`, "text index from lexemes": five words
    /// 0.93–1.31 × the words' cost, about 110 words 0.27–0.32 ×, nine runs).
    package static let postgresLexemeMinimumWords = 8

    /// The text index's document for an action (schema 6) as a `tsvector`, made by the writer so
    /// that PostgreSQL reads lexemes instead of parsing words for every row it stores (issue 42):
    /// each of ``postgresWords(_:)`` once, with the positions it has among them, sorted as
    /// PostgreSQL keeps them, the very lexemes `to_tsvector('simple', words)` makes. In the
    /// binary form a binary COPY hands `tsvectorrecv`: the number of lexemes, then each lexeme's
    /// bytes and a 0, the number of its positions and each position, integers big-endian.
    /// `nil` where that is not certain or does not pay, and the row then stores its words
    /// instead: an action with a byte past ASCII (PostgreSQL's parser reads letters of other
    /// scripts by its locale), fewer than ``postgresLexemeMinimumWords`` or more than
    /// ``postgresLexemeWords`` words, a word longer than ``postgresLexemeBytes``, or a word the
    /// parser splits (`9e6fh1`).
    package static func postgresLexemes(_ text: [UInt8]) -> [UInt8]? {
        guard let lexemes = PostgresLexemes(text) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(4 + lexemes.letters.count + lexemes.count * 5)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) } }
        append(Int32(lexemes.entries.count))
        for entry in lexemes.entries {
            out.append(contentsOf: lexemes.letters[entry.word])
            out.append(0)
            append(UInt16(entry.positions.count))
            for position in entry.positions { append(UInt16(position)) }
        }
        return out
    }

    /// Whether PostgreSQL's parser reads the word (letters and digits) as more than one token:
    /// digits, `e` and digits make a number in exponent form (`9e6`), and letters or digits
    /// after it a second token (`9e6fh1` is `9e6` and `fh1`).
    static func splitByPostgres(_ word: ArraySlice<UInt8>) -> Bool {
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard let first = word.first, isDigit(first) else { return false }
        var index = word.startIndex
        while index < word.endIndex, isDigit(word[index]) { index += 1 }
        guard index + 1 < word.endIndex, word[index] == UInt8(ascii: "e"), isDigit(word[index + 1]) else { return false }
        index += 1
        while index < word.endIndex, isDigit(word[index]) { index += 1 }
        return index < word.endIndex
    }

    /// ``postgresWords(_:)`` by Unicode's characters, for text past ASCII: its first characters
    /// as PostgreSQL's `left` counts them (scalars).
    package static func postgresWordsByCharacters(_ text: String) -> String {
        var prefix = String.UnicodeScalarView()
        prefix.append(contentsOf: text.unicodeScalars.prefix(postgresIndexedCharacters))
        let tokens = withoutAccents(String(prefix)).split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map { $0.lowercased() }
        return tokens.joined(separator: " ")
    }

    /// The words as a PostgreSQL `tsquery` for `to_tsquery('simple', …)`: each word's tokens
    /// must follow one another (`<->`), and the words are ANDed, as in ``fts5(_:)``. A word is
    /// split where FTS5's tokenizer splits (any character that is not a letter or digit), so no
    /// character of the user's can be read as tsquery syntax, and loses its accents as
    /// ``postgresDocument(_:)`` does. `nil` when there is no token (``matchesNothing(_:)`` says
    /// whether that means no filter or no match).
    static func tsquery(_ text: String) -> String? {
        var phrases: [String] = []
        for word in text.split(whereSeparator: { $0.isWhitespace }) {
            let tokens = withoutAccents(String(word)).split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map { $0.lowercased() }
            guard !tokens.isEmpty else { continue }
            phrases.append("(" + tokens.map { "'" + $0 + "'" }.joined(separator: " <-> ") + ")")
        }
        return phrases.isEmpty ? nil : phrases.joined(separator: " & ")
    }

    /// Whether `text` has words but none of them a token (`'`, `&!`): FTS5 matches no event with
    /// such a query, while text without words (blank) filters nothing.
    static func matchesNothing(_ text: String) -> Bool {
        fts5(text) != nil && tsquery(text) == nil
    }

    /// `text` in canonical decomposition without the combining marks U+0300 to U+036F.
    private static func withoutAccents(_ text: String) -> String {
        var kept = String.UnicodeScalarView()
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars where !(0x300...0x36F).contains(scalar.value) {
            kept.append(scalar)
        }
        return String(kept)
    }

    /// SQLite's GLOB (`*`, `?`, `[…]`, `[^…]`, case-sensitive, whole string) as an anchored
    /// regular expression (PostgreSQL's ARE) with the same meaning, or `nil` for a glob that
    /// matches nothing (one with a `[` that is never closed, which SQLite matches with nothing).
    ///
    /// A class is read as SQLite reads it: `^` first negates; `]` first (after any `^`) is a
    /// member; `-` between two members is a range, except right after a range (`[a-c-e]` is
    /// a to c, `-` and `e`), and a reversed range adds only its start (`[z-a]` is `z`); any other
    /// character, `[` and `\` among them, is itself. Each member is escaped in the bracket
    /// expression, so none of them reads as the regular expression's own syntax (`[:alpha:]`).
    static func globRegex(_ glob: String) -> String? {
        var regex = "^"
        var characters = Array(glob.unicodeScalars)[...]
        while let character = characters.popFirst() {
            switch character {
            case "*": regex += ".*"
            case "?": regex += "."
            case "[":
                guard let (members, rest) = globClass(characters) else { return nil }
                regex += members
                characters = rest
            default:
                regex += "^$.|?*+()[]{}\\".unicodeScalars.contains(character) ? "\\" + String(character) : String(character)
            }
        }
        return regex + "$"
    }

    /// The bracket expression for the class that starts after a `[`, and what follows its `]`;
    /// `nil` when no `]` closes it.
    private static func globClass(_ pattern: ArraySlice<Unicode.Scalar>) -> (String, ArraySlice<Unicode.Scalar>)? {
        var rest = pattern
        var negated = false
        var singles: [Unicode.Scalar] = []
        var ranges: [(Unicode.Scalar, Unicode.Scalar)] = []
        if rest.first == "^" {
            negated = true
            rest = rest.dropFirst()
        }
        if rest.first == "]" {
            singles.append("]")
            rest = rest.dropFirst()
        }
        // The member a `-` may start a range from (SQLite's `prior_c`): none right after a range.
        var prior: Unicode.Scalar? = nil
        while let member = rest.first, member != "]" {
            rest = rest.dropFirst()
            if member == "-", let start = prior, let end = rest.first, end != "]" {
                rest = rest.dropFirst()
                if start.value <= end.value { ranges.append((start, end)) }
                prior = nil
            } else {
                singles.append(member)
                prior = member
            }
        }
        guard rest.first == "]" else { return nil }
        func escaped(_ scalar: Unicode.Scalar) -> String {
            "\\^-[]".unicodeScalars.contains(scalar) ? "\\" + String(scalar) : String(scalar)
        }
        var expression = negated ? "[^" : "["
        for single in singles { expression += escaped(single) }
        for (start, end) in ranges { expression += escaped(start) + "-" + escaped(end) }
        return (expression + "]", rest.dropFirst())
    }
}

/// An action's words as a `tsvector`'s lexemes (``TextQuery/postgresLexemes(_:)``): each word
/// once with its positions (from 1, in order), the words in the order PostgreSQL keeps them
/// (their bytes, a prefix first).
struct PostgresLexemes {
    /// The words' letters, lowercased, one after another.
    let letters: [UInt8]
    let entries: [(word: Range<Int>, positions: [Int])]
    /// How many words (positions) there are.
    let count: Int

    init?(_ text: [UInt8]) {
        var letters: [UInt8] = []
        letters.reserveCapacity(text.count)
        var words: [Range<Int>] = []
        var wordStart = -1
        for byte in text.prefix(TextQuery.postgresIndexedCharacters) {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                if wordStart < 0 {
                    guard words.count < TextQuery.postgresLexemeWords else { return nil }
                    wordStart = letters.count
                }
                letters.append(byte | (byte >= UInt8(ascii: "A") ? 0x20 : 0))  // lowercase; digits unchanged
            case 0x80...:
                return nil
            default:
                if wordStart >= 0 { words.append(wordStart..<letters.count) }
                wordStart = -1
            }
        }
        if wordStart >= 0 { words.append(wordStart..<letters.count) }
        guard words.count >= TextQuery.postgresLexemeMinimumWords else { return nil }
        for word in words where word.count > TextQuery.postgresLexemeBytes || TextQuery.splitByPostgres(letters[word]) { return nil }
        let order = words.indices.sorted { a, b in
            let x = letters[words[a]], y = letters[words[b]]
            return x.elementsEqual(y) ? a < b : x.lexicographicallyPrecedes(y)
        }
        var entries: [(word: Range<Int>, positions: [Int])] = []
        for index in order {
            if let last = entries.last, letters[last.word].elementsEqual(letters[words[index]]) {
                entries[entries.count - 1].positions.append(index + 1)
            } else {
                entries.append((words[index], [index + 1]))
            }
        }
        self.letters = letters
        self.entries = entries
        self.count = words.count
    }
}
