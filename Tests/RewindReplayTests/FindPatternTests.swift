import Foundation
import RewindJSON
import RewindReplay
import RewindTestSupport
import Testing

/// `find --matches` runs its own linear-time matcher: these tests hold it to NSRegularExpression's
/// answers on the syntax it takes, and to its bounds on the rest.
@Suite("Find patterns", .ownThreads)
struct FindPatternTests {
    static let patterns = [
        "abc", "a.c", "^abc$", "^abc", "abc$", "a|b", "(ab)+c", "a{2,3}", "a{2}", "a{2,}", "^a{2}$", "[a-z]+\\d",
        "[^0-9]", "^[^0-9]+$", "\\bfoo\\b", "\\Bfoo", "foo\\B", "(?i)HeLLo", "(?i:ab)c", "colou?r", "x*", "", "^$",
        "\\s+", "^\\S+$", "\\w+@\\w+\\.com", "[\\d.]+", "^[\\d.]+$", "a.*b", "(?s)a.b", "a.b", "(?m)^b", "^b",
        "(?m)a$", "\\Aab", "ab\\z", "ab\\Z", "ab$", "\\p{Lu}", "\\P{L}", "^\\p{L}+$", "[-a]", "[a-]", "\\u00e9", "\\x41", "\\x{1F600}", "(a|ab)(c|bcd)(d*)", "(a*)*b", "(?:a|b)*c", "é", "[à-ÿ]+$", "$",
        "^(\\d+)-(\\d+)$", "[\\w-]+", "[^\\s]", "\\.", "\\$\\d", "a+?b", "a*?$", "a??b", "(a|b|c|d)+$", "\\d{3}",
        "^.{3}$", "^.{3,5}$", "(?i)[a-c]+$", "(?i)STRA", "(?<year>\\d{4})", "(x|)y", "()", "a||b", "^(?:)$",
        "\\t", "\\n", "[\\n]", "(?-i)a", "(?i)a(?-i)B", "\\W+", "\\D", "[.]", "[*+?]", "\\\\", "\\]", "]", "\\{\\}",
    ]

    static let subjects = [
        "", "abc", "xabcx", "ABC", "hello world", "Hello", "HELLO", "color", "colour", "aab", "aaaa", "a", "foo bar",
        "foobar", "barfoo", "a\nb", "ab\n", "ab\r\n", "ab\n\n", "café", "Straße", "STRASSE", "straSSe", "😀", "123.45",
        "user@example.com", "a b\tc", "12-34", "a-b_c", "acbd", "abcd", "bbbc", "a.b", "a\u{2028}b", "$5", "]}",
        "\\", "ÀÉÎ", "x", "y", "xy", "2026", "ab", "abbd", "aaab",
    ]

    @Test("on the syntax it takes, it answers as NSRegularExpression does, on every pattern and subject")
    func agreesWithFoundation() throws {
        var compared = 0
        var disagreements: [String] = []
        var refusedByFoundation: [String] = []
        for pattern in Self.patterns {
            let ours = try FindPattern(pattern)
            guard let foundation = try? NSRegularExpression(pattern: pattern) else {
                refusedByFoundation.append(pattern)
                continue
            }
            for subject in Self.subjects {
                let expected = foundation.firstMatch(in: subject, range: NSRange(subject.startIndex..., in: subject)) != nil
                compared += 1
                if ours.matches(subject) != expected {
                    disagreements.append("/\(pattern)/ on \(subject.debugDescription): NSRegularExpression says \(expected)")
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
        // The one pattern ICU refuses: the empty one, which matches everywhere here.
        #expect(refusedByFoundation == [""])
        #expect(try FindPattern("").matches("anything"))
        // Case-insensitive matching folds one character to one (simple case folding): ß is not SS.
        #expect(try FindPattern("(?i)strasse").matches("STRASSE"))
        #expect(try FindPattern("(?i)strasse").matches("Straße") == false)
        #expect(compared == (Self.patterns.count - 1) * Self.subjects.count)
    }

    @Test("what needs backtracking is refused in one sentence, which quotes a short prefix of the pattern", arguments: [
        ("(a)\\1", "a back-reference"), ("a(?=b)", "a look-ahead"), ("a(?!b)", "a look-ahead"), ("(?<=a)b", "a look-behind"),
        ("(?<!a)b", "a look-behind"), ("a++", "a possessive quantifier"), ("(?>a)", "an atomic group"),
        ("(?x)a", "the flag 'x'"), ("a{1001}", "a count over 1000"), ("a{3,2}", "whose maximum is below its minimum"),
        ("[b-a]", "a range whose end comes before its start"), ("*a", "a quantifier with nothing before it"), ("a)", "an unmatched ')'"),
        ("[abc", "a missing ']'"), ("\\q", "the escape \\q"), ("\\p{Greek}", "the property \\p{Greek}"),
        ("(a{1000}){5}", "more than 4096 steps"), ("a{", "a '{' that starts no count"), ("a{1", "a count without its '}'"),
        ("a{,2}", "a '{' that starts no count"), ("}", "a '}' that closes no count"), ("{1}", "a quantifier with nothing before it"),
    ])
    func refused(pattern: String, reason: String) {
        do {
            _ = try FindPattern(pattern)
            Issue.record("/\(pattern)/ was accepted")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
            #expect(error.description.hasPrefix("the pattern /"), "\(error)")
        }
    }

    @Test("patterns are bounded in bytes, not characters, and an error quotes at most 32 characters, escaped")
    func boundedInBytes() throws {
        // 128 two-byte characters are 256 bytes: allowed; one more byte is not.
        _ = try FindPattern(String(repeating: "é", count: 128))
        #expect(throws: FindQueryError.self) { try FindPattern(String(repeating: "é", count: 128) + "a") }
        // A combining-mark bomb is one grapheme but 4 MB: refused by its bytes, quoted briefly.
        let bomb = "a" + String(repeating: "\u{0301}", count: 2_000_000)
        do {
            _ = try FindPattern(bomb)
            Issue.record("a 4 MB pattern was accepted")
        } catch {
            #expect(error.description.utf8.count < 200, "\(error.description.utf8.count) bytes")
            #expect(error.description.contains("is 4000001 bytes; at most 256 are allowed"), "\(error)")
        }
        do {
            _ = try FindPattern("\u{1B}[2J\u{9B}(")
            Issue.record("a broken pattern was accepted")
        } catch {
            #expect(!error.description.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B }, "\(error)")
            #expect(error.description.contains("\\u001b[2J\\u009b("), "\(error)")
        }
    }

    @Test("a pattern that backtracks exponentially elsewhere answers at once, and a deadline stops a match inside it")
    func linearAndInterruptible() throws {
        let hostile = try FindPattern("(.*a){12}!x")
        #expect(hostile.matches(String(repeating: "a", count: 200)) == false)
        #expect(hostile.matches(String(repeating: "a", count: 200) + "!x"))
        #expect(try FindPattern("(a|aa)+$").matches(String(repeating: "a", count: 5_000) + "b") == false)
        // A deadline already past: the match stops before it starts, and says so with nil.
        let past = ContinuousClock.now.advanced(by: .seconds(-1))
        #expect(hostile.matches(String(repeating: "a", count: 60_000), deadline: past) == nil)
        #expect(FindCondition.matches(hostile).holds(.string("aaa"), deadline: past) == nil)
        // Only the first 65,536 characters are searched.
        let needleLate = String(repeating: "x", count: FindPattern.maxSubjectLength) + "needle"
        #expect(try FindPattern("needle").matches(needleLate) == false)
        #expect(try FindPattern("needle").matches(String(repeating: "x", count: 100) + "needle"))
    }
}
