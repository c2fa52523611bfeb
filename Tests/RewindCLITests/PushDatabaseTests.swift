import Foundation
import RewindJSON
import RewindLog
import RewindPostgres
import RewindReplay
import RewindTestSupport
import Testing

/// `rewind push --to`: local sessions copied whole into a team database (or a file), each once.
@Suite("rewind push --to a team database", .ownThreads)
struct PushDatabaseTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let recorded = "aaaa0000-0000-4000-8000-000000000001"
    static let branch = "bbbb0000-0000-4000-8000-000000000002"
    static let empty = "cccc0000-0000-4000-8000-000000000003"
    static let live = "dddd0000-0000-4000-8000-000000000004"

    /// A log file with four sessions: one recorded with hash version 2 in a run, with tags,
    /// non-finite marks, send sites and an end; a branch of it; one without events; one still
    /// live (not ended), of `liveEvents` events.
    static func recordLocal(at path: String, liveEvents: Int = 30) throws {
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        let meta: JSONValue = ["version": "2.1", "device": "iPhone15,2", "os": "iOS 17.4", "tags": ["bug report", "beta"]]
        let id = try writer.openSession(uuid: recorded, app: "Shop", startedAt: start, meta: meta, run: "run-7", hashVersion: .v2)
        var builder = EventBuilder(sessionID: id, policy: KeyframePolicy(maxEvents: 25, maxPatchBytesRatio: 1_000), hashVersion: .v2)
        var events: [LogEvent] = []
        for seq in 0..<120 {
            let ratio: JSONValue = seq % 10 == 0 ? "NaN" : .number(JSONNumber(seq))
            let state: JSONValue = ["cart": .array((0..<(seq % 6)).map { .number(JSONNumber($0)) }), "ratio": ratio, "user": ["name": seq < 60 ? "Ada" : "Grace"]]
            var event = seq == 0 ? builder.initial(state: state, at: start)
                : builder.next(action: ["type": "cart/step", "n": .number(JSONNumber(seq))], state: state, at: start.addingTimeInterval(Double(seq) / 3),
                               durationNs: Int64(seq * 1_000), cause: seq > 1 ? Int64(seq - 1) : nil)
            if seq % 10 == 0 { event.nonFinite = ["/state/ratio"] }
            if seq % 4 == 1 { event.site = SendSite(file: "Shop/CartView.swift", line: 40 + seq, function: "tapped()") }
            events.append(event)
        }
        writer.append(events)
        try writer.flush()
        try writer.endSession(id: id, at: start.addingTimeInterval(100))

        let branchMeta: JSONValue = ["branch": ["of": .string(recorded), "skipped": [7], "edited": []]]
        let branchID = try writer.openSession(uuid: branch, app: "Shop", startedAt: start.addingTimeInterval(200), meta: branchMeta,
                                              replayOf: recorded, hashVersion: .v2)
        var branchBuilder = EventBuilder(sessionID: branchID, hashVersion: .v2)
        writer.append([branchBuilder.initial(state: ["cart": []], at: start.addingTimeInterval(200)),
                       branchBuilder.next(action: ["type": "cart/step"], state: ["cart": [1]], at: start.addingTimeInterval(201))])
        try writer.flush()
        try writer.endSession(id: branchID, at: start.addingTimeInterval(202))

        _ = try writer.openSession(uuid: empty, app: "Empty", startedAt: start.addingTimeInterval(300))

        let liveID = try writer.openSession(uuid: live, app: "Live", startedAt: start.addingTimeInterval(400))
        var liveBuilder = EventBuilder(sessionID: liveID)
        var liveEventsList = [liveBuilder.initial(state: ["n": 0], at: start.addingTimeInterval(400))]
        for n in 1..<liveEvents {
            liveEventsList.append(liveBuilder.next(action: ["type": "tick"], state: ["n": .number(JSONNumber(n))], at: start.addingTimeInterval(400 + Double(n))))
        }
        writer.append(liveEventsList)
        try writer.flush()
    }

    /// Appends events `from..<to` of the live session's counter to the local log.
    static func continueLive(at path: String, from: Int, to: Int) throws {
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        let id = try #require(try writer.sessionID(uuid: live))
        var builder = EventBuilder(resuming: id, nextSeq: Int64(from), state: ["n": .number(JSONNumber(from - 1))])
        writer.append((from..<to).map { n in
            builder.next(action: ["type": "tick"], state: ["n": .number(JSONNumber(n))], at: start.addingTimeInterval(400 + Double(n)))
        })
        try writer.flush()
    }

    /// Asserts that `copy` holds what `original` holds of each session (everything but the ids).
    static func expectSameSessions(_ original: LogReader, _ copy: LogReader, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let mine = try original.sessions()
        let theirs = try copy.sessions()
        #expect(theirs.map(\.uuid).sorted() == mine.map(\.uuid).sorted(), sourceLocation: sourceLocation)
        for info in mine {
            let other = try #require(try copy.session(uuid: info.uuid), sourceLocation: sourceLocation)
            var same = other
            same.id = info.id
            #expect(same == info, sourceLocation: sourceLocation)
            let events = try copy.events(session: other.id, includeKeyframes: true).map { event in
                var event = event
                event.sessionID = info.id
                return event
            }
            #expect(events == (try original.events(session: info.id, includeKeyframes: true)), "\(info.uuid)", sourceLocation: sourceLocation)
            #expect(other.tags == info.tags, sourceLocation: sourceLocation)
        }
    }

    @Test("push copies every session whole; pushing again copies nothing; the copies verify and answer as the originals")
    func pushTwice() throws {
        let directory = try TemporaryDirectory()
        let local = directory.path("local.db")
        try Self.recordLocal(at: local)
        let database = try TeamStore.database("push")
        defer { TeamStore.drop(database) }
        let shown = TeamStore.shown(database)

        let first = try TeamStore.run(["push", "--to", database], db: local)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr == "")
        #expect(first.stdout == """
            aaaa0000  Shop  120 events: copied 120 events as session 1
            bbbb0000  Shop  2 events: copied 2 events as session 2
            cccc0000  Empty  0 events: copied 0 events as session 3
            dddd0000  Live  30 events: copied 30 events as session 4
            Copied 4 sessions (152 events) into \(shown); skipped 0 it already held.

            """)
        #expect(!first.stdout.contains("rewind:rewind"), "no password")

        let second = try TeamStore.run(["push", "--to", database], db: local)
        #expect(second.status == 0)
        #expect(second.stdout == """
            aaaa0000  Shop  120 events: skipped: session 1 there already holds 120 events
            bbbb0000  Shop  2 events: skipped: session 2 there already holds 2 events
            cccc0000  Empty  0 events: skipped: session 3 there already holds 0 events
            dddd0000  Live  30 events: skipped: session 4 there already holds 30 events
            Copied 0 sessions (0 events) into \(shown); skipped 4 it already held.

            """)

        let original = try LogReader(path: local)
        let copy = try PostgresLogStore(url: database).openReader()
        try Self.expectSameSessions(original, copy)
        #expect(try copy.sessions(matching: SessionFilter(tag: "bug report")).map(\.uuid) == [Self.recorded])
        #expect(try copy.session(uuid: Self.branch)?.branch == BranchOrigin(of: Self.recorded, skipped: [7]))

        let verified = try TeamStore.run(["verify"], db: database)
        #expect(verified.status == 0)
        #expect(verified.stdout.split(separator: "\n").count == 4)
        #expect(verified.stdout.split(separator: "\n").allSatisfy { $0.contains(": ok, ") })
        for arguments in [["state", "1@last"], ["state", "1@57", "--compact"], ["state", "2@1"], ["log", "1", "--source", "--to", "9"],
                          ["blame", "1", "/user/name"], ["find", "1", "/ratio", "--is", "\"NaN\"", "--json"], ["log", "4", "--grep", "tick", "--limit", "3"]] {
            let fromFile = try TeamStore.run(arguments, db: local)
            let fromDatabase = try TeamStore.run(arguments, db: database)
            #expect(fromFile.status == 0)
            #expect(fromDatabase.stdout == fromFile.stdout, "rewind \(arguments.joined(separator: " "))")
        }
    }

    @Test("a session the database holds in part gets the events it lacks, and its end")
    func completesPartialSessions() throws {
        let directory = try TemporaryDirectory()
        let local = directory.path("local.db")
        try Self.recordLocal(at: local, liveEvents: 30)
        let database = try TeamStore.database("push_partial")
        defer { TeamStore.drop(database) }
        let named = try TeamStore.run(["push", "--to", database, "dddd", "aaaa", "dddd"], db: local)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout.split(separator: "\n").count == 3, "each session once, in the order named: \(named.stdout)")
        #expect(named.stdout.hasPrefix("dddd0000  Live  30 events: copied 30 events as session 1\naaaa0000"))

        try Self.continueLive(at: local, from: 30, to: 75)
        let writer = try LogWriter(path: local)
        try writer.endSession(id: try #require(try writer.sessionID(uuid: Self.live)), at: Self.start.addingTimeInterval(500))
        writer.close()
        let json = try TeamStore.run(["push", "--to", database, "--json"], db: local)
        #expect(json.status == 0)
        let lines = try jsonLines(json.stdout)
        #expect(lines.count == 4)
        #expect(lines.first { $0["uuid"] == .string(Self.live) } == [
            "uuid": .string(Self.live), "app": "Live", "events": 75, "had": 30, "copied": 45, "skipped": false, "id": 1, "problem": nil,
        ])
        #expect(lines.first { $0["uuid"] == .string(Self.recorded) }?["skipped"] == true)
        try Self.expectSameSessions(try LogReader(path: local), try PostgresLogStore(url: database).openReader())
        #expect(try TeamStore.run(["verify", "1"], db: database).status == 0)
    }

    @Test("a session another rewind serve is writing, or another session under the same uuid, is not copied: exit 1, the rest are")
    func refusesWhatItCannotCopyWhole() throws {
        let directory = try TemporaryDirectory()
        let local = directory.path("local.db")
        try Self.recordLocal(at: local)
        let database = try TeamStore.database("push_refused")
        defer { TeamStore.drop(database) }
        let store = try PostgresLogStore(url: database)
        let holder = try store.openWriter()
        defer { holder.close() }
        // An instance writing the live session now (it holds its first event), and a different
        // recording under the branch's uuid.
        let leased = try holder.openSession(uuid: Self.live, app: "Live", startedAt: Self.start.addingTimeInterval(400))
        var builder = EventBuilder(sessionID: leased)
        holder.append([builder.initial(state: ["n": 0], at: Self.start.addingTimeInterval(400))])
        let impostor = try holder.openSession(uuid: Self.branch, app: "Shop", startedAt: Self.start, meta: [:], replayOf: nil, run: nil, hashVersion: .v2)
        var other = EventBuilder(sessionID: impostor, hashVersion: .v2)
        holder.append([other.initial(state: ["something": "else"], at: Self.start)])
        try holder.flush()
        holder.release(session: impostor)

        let pushed = try TeamStore.run(["push", "--to", database], db: local)
        #expect(pushed.status == 1)
        let lines = pushed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[0] == "aaaa0000  Shop  120 events: copied 120 events as session 3")
        #expect(lines[1] == "bbbb0000  Shop  2 events: not copied: \(TeamStore.shown(database)) holds another session under uuid \(Self.branch): their states differ at seq 0")
        #expect(lines[3] == "dddd0000  Live  30 events: not copied: Session \(Self.live) in \(TeamStore.shown(database)) is being written by another rewind serve instance (it holds the session's lease).")
        #expect(lines[4] == "Copied 2 sessions (120 events) into \(TeamStore.shown(database)); skipped 0 it already held; 2 could not be copied.")
        let reader = try store.openReader()
        #expect(try reader.eventCount(session: leased) == 1, "nothing added to the leased session")
        #expect(try reader.eventCount(session: impostor) == 1)

        // Once the instance lets go, the next push completes it.
        holder.release(session: leased)
        let again = try TeamStore.run(["push", "--to", database, "dddd"], db: local)
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("dddd0000  Live  30 events: it held 1 event; copied the other 29 into session \(leased)\n"))
        #expect(try Timeline(reader: reader, session: leased).verify().passed)
    }

    @Test("push --to takes a team's sessions from a database to a file, and refuses what it cannot do in one sentence")
    func databaseToFileAndErrors() throws {
        let directory = try TemporaryDirectory()
        let local = directory.path("local.db")
        try Self.recordLocal(at: local)
        let database = try TeamStore.database("push_back")
        defer { TeamStore.drop(database) }
        #expect(try TeamStore.run(["push", "--to", database], db: local).status == 0)
        let laptop = directory.path("laptop.db")
        let back = try TeamStore.run(["push", "--to", laptop, "aaaa"], db: database)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stdout.hasSuffix("Copied 1 session (120 events) into \(laptop); skipped 0 it already held.\n"))
        let original = try LogReader(path: local)
        let copy = try LogReader(path: laptop)
        #expect(try copy.sessions().map(\.uuid) == [Self.recorded])
        #expect(try copy.events(session: 1, includeKeyframes: true) == original.events(session: 1, includeKeyframes: true))

        let shown = TeamStore.shown(database)
        let cases: [(arguments: [String], db: String, message: String)] = [
            (["push"], local, "rewind push needs --server (a rewind serve to deliver to) or --to (a database or file to copy into)"),
            (["push", "--to", database, "--server", "ws://127.0.0.1:1"], local, "give rewind push --server or --to, not both: it delivers to a server or copies into a log"),
            (["push", "--server", "ws://127.0.0.1:1"], database,
             "rewind push --server delivers sessions from a log file, and \(shown) is a database; to copy from it, use --to"),
            (["push", "--to", database.replacingOccurrences(of: "rewind:rewind@", with: "rewind:othersecret@")], database,
             "--to names the log --db reads (\(shown)); nothing was copied"),
            (["push", "--to", local], local, "--to names the log --db reads (\(local)); nothing was copied"),
            (["push", "--server", database], local, "--server takes a rewind serve's address, and \(shown) is a database: to copy into it, use --to"),
            (["push", "--to", database, "zzzz"], local, "No session named 'zzzz' in \(local): no id or uuid matches it."),
        ]
        for (arguments, db, message) in cases {
            let result = try TeamStore.run(arguments, db: db)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr == message + "\n", "\(arguments)")
            #expect(result.stdout == "")
        }
        let unreachable = try ReservedPort()
        let refused = try TeamStore.run(["push", "--to", "postgres://rewind:othersecret@127.0.0.1:\(unreachable.port)/rewind"], db: local)
        #expect(refused.status == 2)
        #expect(TeamStore.isOneSentence(refused.stderr))
        #expect(refused.stderr.hasPrefix("The database postgres://rewind@127.0.0.1:\(unreachable.port)/rewind cannot be reached: "))
        #expect(!refused.stderr.contains("othersecret"))
    }
}
