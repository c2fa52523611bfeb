import Foundation
import Testing
@testable import RewindLog
import RewindSupport
import RewindTestSupport

/// The words a team store indexes for an action (schema 5), made by the writer: the same words
/// the user's search is split into (`TextQuery.tsquery`), whatever path the text takes.
@Suite("Words for the team store's text index", .ownThreads)
struct PostgresWordsTests {
    @Test("letters and digits, lowercased, one space between runs; accents go; ASCII is read byte by byte as by characters")
    func words() {
        func words(_ text: String) -> String { String(decoding: TextQuery.postgresWords(Array(text.utf8)), as: UTF8.self) }
        #expect(words(#"{"type":"todo/Toggle","payload":{"id":12,"by":"ada@example.com"}}"#)
                == "type todo toggle payload id 12 by ada example com")
        #expect(words(#"{"title":"Café Crème n°3 — ÉTÉ"}"#) == "title cafe creme n 3 ete")
        #expect(words(#"{"city":"Zürich","jp":"東京タワー","el":"Ελλάδα"}"#) == "city zurich jp 東京タワー el ελλαδα")
        #expect(words("{}").isEmpty)
        #expect(words("  --a--  ") == "a")
        // Every ASCII character, in random strings: the byte path is the character path.
        var generator = SplitMix64(seed: 42)
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 40)
            let text = String((0..<length).map { _ in Character(Unicode.Scalar(UInt8(generator.next() % 128))) })
            #expect(words(text) == TextQuery.postgresWordsByCharacters(text), "\(Array(text.utf8))")
        }
    }

    @Test("only the first 131,072 characters are indexed, counted as PostgreSQL counts them")
    func prefix() {
        let limit = TextQuery.postgresIndexedCharacters
        let ascii = String(repeating: "a", count: limit - 2) + " bc"
        #expect(String(decoding: TextQuery.postgresWords(Array(ascii.utf8)), as: UTF8.self).hasSuffix(" b"))
        let wide = String(repeating: "é", count: limit - 2) + " bc"
        let words = String(decoding: TextQuery.postgresWords(Array(wide.utf8)), as: UTF8.self)
        #expect(words.hasSuffix("e b") && words.count == limit)
    }

    @Test("a search's words are the document's words: what a user types finds the action it names")
    func searchMatchesDocument() {
        let action = #"{"type":"cart/addItem","payload":{"name":"Crème Brûlée","sku":"CB-12"}}"#
        let document = Set(String(decoding: TextQuery.postgresWords(Array(action.utf8)), as: UTF8.self).split(separator: " ").map(String.init))
        for typed in ["creme", "BRÛLÉE", "cart/additem", "cb-12"] {
            let query = TextQuery.tsquery(typed) ?? ""
            let tokens = query.split(whereSeparator: { "()'<->& ".contains($0) }).map(String.init)
            #expect(!tokens.isEmpty && tokens.allSatisfy(document.contains), "\(typed): \(query)")
        }
    }
}
