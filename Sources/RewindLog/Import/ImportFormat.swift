import RewindJSON

/// The file formats `rewind import` reads and `rewind export` writes.
public enum ImportFormat: String, Sendable, CaseIterable {
    /// One JSON object per line: `{"action": …, "state": …, "at": seconds}`.
    case jsonl
    /// What the Redux DevTools' Export button writes (the lifted state, or `{payload, preloadedState}`).
    case reduxDevTools = "redux-devtools"

    /// What a look at the content says the file is.
    enum Guess {
        case jsonl
        /// A Redux DevTools document, already parsed.
        case reduxDevTools(JSONValue)
        /// One JSON document spread over lines, which is not JSONL, but not valid JSON either.
        case brokenDocument(JSONError)
    }

    /// Guesses the format from the content: a single JSON object with `actionsById` or `payload`
    /// is a Redux DevTools export; anything else is read as JSONL.
    ///
    /// A multi-line document that does not parse is reported as a broken document when it
    /// mentions either member and its first line is not a JSON value on its own; otherwise the
    /// JSONL reader reports the first bad line.
    static func guess(_ bytes: [UInt8]) -> Guess {
        do {
            let document = try JSONValue(parsing: bytes)
            if let object = document.objectValue, object["actionsById"] != nil || object["payload"] != nil {
                return .reduxDevTools(document)
            }
            return .jsonl
        } catch {
            guard error.line > 1 else { return .jsonl }
            if let first = JSONLines.firstContentLine(in: bytes), (try? JSONValue(parsing: Array(first))) != nil {
                return .jsonl
            }
            if bytes.contains(subsequence: Array(#""actionsById""#.utf8)) || bytes.contains(subsequence: Array(#""payload""#.utf8)) {
                return .brokenDocument(error)
            }
            return .jsonl
        }
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in the array (a plain scan: it runs once per guess).
    fileprivate func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        let first = needle[0]
        var index = 0
        let last = count - needle.count
        while index <= last {
            if self[index] == first && self[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
