import Foundation
import RewindJSON
import RewindLog
@testable import RewindCLI
import Testing
import RewindTestSupport

/// Issue 38, item 6: an app's name (or a uuid, or a server's words) with a newline in it started
/// a line of its own in `rewind verify`, `verify N` and `prune --dry-run`: an app could forge
/// "session N (…): ok" in the very command an admin checks integrity with. `HostileOutputTests`
/// let it through because its payload has no plain newline and its check allows newlines. Here an
/// app named with one is imported into a file and a team database, and no command's output
/// starts a line with what follows the newline.
@Suite("An app's newline starts no line", .serialized, .ownThreads)
struct ForgedLineTests {
    static let forged = "session 9 (forged): ok"
    static let app = "Shop\n" + forged
    static let recording = Data("""
        {"state":{"n":0},"at":1700000000}
        {"action":{"type":"inc"},"state":{"n":1},"at":1700000001}

        """.utf8)

    /// Fails when a line of `text` starts with the forged text.
    static func expectNoForgedLine(_ text: String, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = text.split(separator: "\n").filter { $0.hasPrefix(forged) }
        #expect(lines.isEmpty, "\(label) printed a line the app wrote: \(TerminalText.escapedLines(text))", sourceLocation: sourceLocation)
    }

    static func check(db: String) throws {
        let imported = try TeamStore.run(["import", "-", "--app", app], db: db, stdin: recording)
        #expect(imported.status == 0, "\(imported.stderr)")
        Self.expectNoForgedLine(imported.stdout, "import")
        for arguments in [["verify"], ["verify", "1"], ["prune", "1", "--dry-run"], ["sessions"], ["stats"], ["stats", "1"], ["log", "1"]] {
            let result = try TeamStore.run(arguments, db: db)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            Self.expectNoForgedLine(result.stdout, arguments.joined(separator: " "))
            Self.expectNoForgedLine(result.stderr, arguments.joined(separator: " ") + " (stderr)")
        }
        let verified = try TeamStore.run(["verify"], db: db)
        #expect(verified.stdout == #"session 1 ("# + (verified.stdout.dropFirst(11).prefix(8)) + #", Shop\nsession 9 (forged): ok): ok, 2 events, 1 keyframes"# + "\n",
                "\(verified.stdout)")
        let pruned = try TeamStore.run(["prune", "1", "--dry-run"], db: db)
        #expect(pruned.stdout.contains(#"app Shop\nsession 9 (forged): ok, 2 events"#), "\(pruned.stdout)")
    }

    @Test("in a log file")
    func file() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        try Self.check(db: folder.path("forged.db"))
    }

    @Test("in a team database")
    func database() throws {
        let url = try TeamStore.database("forged")
        defer { TeamStore.drop(url) }
        try Self.check(db: url)
    }
}
