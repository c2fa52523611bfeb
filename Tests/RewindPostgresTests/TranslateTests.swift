import RewindPostgres
import Testing

/// SQLite's parameter spelling as PostgreSQL's, as the reader's queries need it.
@Suite("Parameters translated for PostgreSQL")
struct TranslateTests {
    @Test("numbered and bare parameters, quotes and comments", arguments: [
        ("SELECT ?1, ?2, ?1", "SELECT $1, $2, $1", 2, [Int]()),
        ("WHERE a = ? AND b = ? LIMIT ?", "WHERE a = $1 AND b = $2 LIMIT $3", 3, []),
        ("WHERE a = ?1 AND b = ?3", "WHERE a = $1 AND b = $3", 3, [2]),
        ("SELECT '?1', \"?\" FROM t WHERE x = ?1", "SELECT '?1', \"?\" FROM t WHERE x = $1", 1, []),
        ("SELECT 'it''s ?' , ?1", "SELECT 'it''s ?' , $1", 1, []),
        ("SELECT 1 -- don't ?2\nWHERE a = ?1", "SELECT 1 -- don't ?2\nWHERE a = $1", 1, []),
        ("SELECT a - -1 FROM t WHERE b = ?1", "SELECT a - -1 FROM t WHERE b = $1", 1, []),
    ])
    func translate(sql: String, expected: String, parameters: Int, unused: [Int]) {
        let translation = PGConnection.translate(sql)
        #expect(translation.sql == expected)
        #expect(translation.parameters == parameters)
        #expect(translation.unused == unused)
    }
}
