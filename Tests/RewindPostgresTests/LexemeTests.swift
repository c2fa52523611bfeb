import Foundation
@testable import RewindLog
import RewindSupport
import RewindTestSupport
import Testing

/// The lexemes the team store's writer makes of an action (schema 6) are what PostgreSQL's
/// `to_tsvector('simple', words)` makes of the action's words, checked by PostgreSQL itself; an
/// action the writer cannot be sure of is left to PostgreSQL.
@Suite("Lexemes for the team store's text index", .ownThreads)
struct LexemeTests {
    static var cluster: PostgresTestCluster {
        get throws { try PostgresTestCluster.shared() }
    }

    /// The writer's lexemes (`tsvector`'s binary form) read back as `tsvectorrecv` reads them and
    /// written in `tsvector`'s text form (`'ada':1,4 'login':2`); `nil` when there are none, or
    /// when the bytes are not exactly a binary `tsvector` (then `"malformed"`).
    static func text(_ binary: [UInt8]?) -> String? {
        guard let binary else { return nil }
        var offset = 0
        func integer(_ size: Int) -> Int? {
            guard offset + size <= binary.count else { return nil }
            defer { offset += size }
            return binary[offset..<(offset + size)].reduce(0) { $0 << 8 | Int($1) }
        }
        var lexemes: [String] = []
        guard let count = integer(4) else { return "malformed" }
        for _ in 0..<count {
            guard let end = binary[offset...].firstIndex(of: 0) else { return "malformed" }
            let word = String(decoding: binary[offset..<end], as: UTF8.self)
            offset = end + 1
            guard let positions = integer(2) else { return "malformed" }
            var list: [String] = []
            for _ in 0..<positions {
                guard let position = integer(2) else { return "malformed" }
                list.append(String(position))
            }
            lexemes.append("'\(word)':" + list.joined(separator: ","))
        }
        return offset == binary.count ? lexemes.joined(separator: " ") : "malformed"
    }

    @Test("for random ASCII text and JSON actions the lexemes (binary form, read back) are to_tsvector's, position for position, in its order")
    func sameAsPostgres() throws {
        var generator = SplitMix64(seed: 7)
        var actions: [String] = [
            #"{"type":"todo/Toggle","payload":{"id":12,"by":"ada@example.com"}}"#,
            #"{"type":"n","payload":{"values":[1e5,-0.25,0x1F,"12abc","abc12","3.14.15","a-b_c","1E+5","2e10x"]}}"#,
            #"{"id":"550e8400-e29b-41d4-a716-446655440000","e":"1e","f":"e1","g":"12e3e4","h":"0e0"}"#,
            "a a a b a c d e f g", "UPPER lower MiXeD 007 bond and more words here",
            String(repeating: "x", count: TextQuery.postgresLexemeBytes),
            (1...TextQuery.postgresLexemeWords).map { "w\($0 % 7)" }.joined(separator: " "),
        ]
        let alphabet = Array("abcexyzABEZ0189 \"{}[]:,.-+_/@'\\\t\n".utf8)
        for _ in 0..<1_500 {
            let length = 20 + Int(generator.next() % 200)
            let any = generator.next() % 2 == 0
            actions.append(String(decoding: (0..<length).map { _ in
                any ? UInt8(generator.next() % 128) : alphabet[Int(generator.next() % UInt64(alphabet.count))]
            }, as: UTF8.self))
        }
        var rows: [String] = []
        for action in actions {
            let bytes = Array(action.utf8)
            // An action with a word PostgreSQL splits is left to it (below); the others are checked.
            guard let lexemes = Self.text(TextQuery.postgresLexemes(bytes)) else { continue }
            let words = String(decoding: TextQuery.postgresWords(bytes), as: UTF8.self)
            rows.append("($q$\(words)$q$, $q$\(lexemes)$q$)")
        }
        let url = try Self.cluster.createDatabase(prefix: "lexemes")
        defer { try? Self.cluster.dropDatabase(url) }
        // Equal as tsvectors, and as text: written in the order PostgreSQL keeps, nothing to sort.
        let differ = try Self.cluster.psql("""
            SELECT count(*), string_agg(w || ' => ' || l, E'\\n') FILTER (WHERE to_tsvector('simple', w) <> l::tsvector OR l::tsvector::text <> l)
            FROM (VALUES \(rows.joined(separator: ", "))) v(w, l)
            """, database: url)
        #expect(differ == "\(rows.count)|", "\(differ)")
        #expect(rows.count > actions.count / 3, "\(rows.count) of \(actions.count)")
        // A phrase search reads positions: a word's neighbours are the action's.
        #expect(try Self.cluster.psql("""
            SELECT ($q$\(Self.text(TextQuery.postgresLexemes(Array(actions[0].utf8)))!)$q$::tsvector @@ to_tsquery('simple', 'ada <-> example <-> com'))::text
                || ($q$\(Self.text(TextQuery.postgresLexemes(Array(actions[0].utf8)))!)$q$::tsvector @@ to_tsquery('simple', 'ada <-> com'))::text
            """, database: url) == "truefalse")
    }

    @Test("an action past ASCII, under 8 or past 255 words, or with a word past 2,046 bytes or one the parser splits is left to PostgreSQL")
    func leftToPostgres() {
        #expect(TextQuery.postgresLexemes(Array(#"{"title":"Café"}"#.utf8)) == nil)
        #expect(TextQuery.postgresLexemes(Array((0...TextQuery.postgresLexemeWords).map { "w\($0)" }.joined(separator: " ").utf8)) == nil)
        #expect(TextQuery.postgresLexemes(Array(("a " + String(repeating: "x", count: TextQuery.postgresLexemeBytes + 1)).utf8)) == nil)
        #expect(TextQuery.postgresLexemes(Array(#"{"n":"9e6fh1"}"#.utf8)) == nil)
        #expect(TextQuery.postgresLexemes(Array(#"{"n":"12e3e4"}"#.utf8)) == nil)
        #expect(Self.text(TextQuery.postgresLexemes(Array(#"{"type":"Go","n":[1e5,"550e8400","12abc","X","y"]}"#.utf8)))
                == "'12abc':6 '1e5':4 '550e8400':5 'go':2 'n':3 'type':1 'x':7 'y':8")
        #expect(Self.text(TextQuery.postgresLexemes(Array("b a ab a b c d e".utf8))) == "'a':2,4 'ab':3 'b':1,5 'c':6 'd':7 'e':8")
        // Fewer words than the minimum cost PostgreSQL no more as words.
        let seven = (1..<TextQuery.postgresLexemeMinimumWords).map { "w\($0)" }.joined(separator: " ")
        #expect(TextQuery.postgresLexemes(Array(seven.utf8)) == nil)
        #expect(TextQuery.postgresLexemes(Array((seven + " w0").utf8)) != nil)
    }
}
