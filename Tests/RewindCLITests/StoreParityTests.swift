import Foundation
import RewindJSON
import RewindTestSupport
import Testing

/// Issue 30: "the same sessions imported into SQLite and PostgreSQL answer state, diff, blame
/// and find identically". The same JSONL files go through the real `rewind import` into a log
/// file and into a database, then every query command is asked the same of both.
@Suite("The same sessions in a file and in a team database answer alike", .ownThreads)
struct StoreParityTests {
    /// The commands asked of both logs (sessions 1 to 3 are the shop, the todos, the odd one).
    static let commands: [[String]] = [
        ["state", "1@0"], ["state", "1@137", "--compact"], ["state", "1@last"], ["state", "1@200", "--path", "/cart/0/options"],
        ["state", "1@250", "--path", "/a~1b/m~0n"], ["state", "1@399", "--json"], ["state", "2@0"], ["state", "2@last", "--compact"],
        ["state", "3@2"], ["state", "3@4", "--path", "/x/y"], ["state", "latest@last", "--compact"], ["state", "1@400"],
        ["diff", "1@10", "1@390"], ["diff", "1@390", "1@10", "--format", "patch"], ["diff", "2@0", "2@last", "--format", "inverse"],
        ["diff", "1@0", "2@100"], ["diff", "3@0", "3@4"],
        ["blame", "1", "/user/name"], ["blame", "1", "/total", "--json"], ["blame", "2", "/todos/0/title"], ["blame", "1", "/ratio"],
        ["blame", "1", "/a~1b/m~0n"], ["blame", "3", ""],
        ["find", "1", "/total", "--gt", "40", "--all"], ["find", "1", "/user/name", "--changed", "--json"],
        ["find", "1", "/ratio", "--is", "\"NaN\""], ["find", "1", "/ratio", "--matches", "Inf"], ["find", "2", "/todos/3", "--exists", "--first"],
        ["find", "--all-sessions", "/filter", "--is", "\"done\""], ["find", "2", "/todos/0/titel", "--exists"],
        ["log", "1", "--grep", "ada@example.com"], ["log", "1", "--grep", "GRACE example"], ["log", "1", "--grep", "cafe creme 9:30"],
        ["log", "2", "--grep", "MILK ada"], ["log", "2", "--grep", "'"], ["log", "1", "--type", "cart/*"], ["log", "1", "--type", "stats.tick+"],
        ["log", "1", "--type", "[a-c]*/?dd", "--limit", "5"], ["log", "1", "--type", "[^c]*"], ["log", "3", "--type", "[[]x]"],
        ["log", "2", "--json", "--from", "5", "--to", "40"], ["log", "3"], ["log", "1", "--grep", "price", "--type", "cart/add", "--json"],
        ["verify"], ["verify", "2", "--json"],
        ["export", "1"], ["export", "2"], ["export", "3"], ["export", "2", "--format", "redux-devtools"],
        ["replay", "1", "--json", "--to", "30"], ["replay", "2", "--from", "280"],
        ["sessions"], ["sessions", "--app", "todos", "--json"], ["sessions", "--limit", "2"],
    ]

    @Test("imported into a file and a database, sessions answer state, diff, blame, find, log, verify and export byte for byte alike")
    func importedSessionsAnswerAlike() throws {
        let directory = try TemporaryDirectory()
        let recordings = try ParityRecordings.write(into: directory)
        let file = directory.path("parity.db")
        let database = try TeamStore.database("parity")
        defer { TeamStore.drop(database) }
        // What differs between the two by nature: the logs' names, the uuids an import makes
        // up, and the time of the import.
        var replacements: [[(String, String)]] = [[(file, "LOG")], [(TeamStore.shown(database), "LOG")]]
        for (index, log) in [file, database].enumerated() {
            for (number, recording) in recordings.enumerated() {
                let imported = try TeamStore.run(["import", recording, "--json"], db: log)
                #expect(imported.status == 0, "\(imported.stderr)")
                let answer = try JSONValue(parsing: imported.stdout)
                #expect(answer["id"] == .number(JSONNumber(number + 1)))
                let uuid = try #require(answer["uuid"]?.stringValue)
                replacements[index] += [(uuid, "UUID-\(number + 1)"), (String(uuid.prefix(8)), "UUID-\(number + 1)")]
            }
            // The recordings come back as they went in.
            for (number, recording) in recordings.enumerated() {
                let exported = try TeamStore.run(["export", String(number + 1)], db: log)
                #expect(exported.stdoutBytes == Array(try Data(contentsOf: URL(fileURLWithPath: recording))), "\(recording) from \(index == 0 ? "the file" : "the database")")
            }
        }
        var silent: [[String]] = []
        for arguments in Self.commands {
            let outputs = try [file, database].map { log in try TeamStore.run(arguments, db: log) }
            let answers = outputs.enumerated().map { index, output in Self.normalized(output, replacements[index]) }
            #expect(answers[0] == answers[1], "rewind \(arguments.joined(separator: " "))")
            if outputs[0].stdout.isEmpty && outputs[0].stderr.isEmpty { silent.append(arguments) }
        }
        // Every command answered something, but the search for a word with no letter in it.
        #expect(silent == [["log", "2", "--grep", "'"]])
    }

    /// A command's exit status and outputs with what differs by nature replaced, and the import
    /// times (in a session's meta) left out.
    static func normalized(_ output: CLIRunner.Output, _ replacements: [(String, String)]) -> String {
        var text = "status \(output.status)\n--- stdout\n\(output.stdout)\n--- stderr\n\(output.stderr)"
        for (from, to) in replacements { text = text.replacingOccurrences(of: from, with: to) }
        return text.replacingOccurrences(of: #""importedAt":[0-9.e+-]+"#, with: #""importedAt":T"#, options: .regularExpression)
    }
}
