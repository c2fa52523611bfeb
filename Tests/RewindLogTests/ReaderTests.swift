import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

@Suite("LogReader: sessions, names, filters, keyframes, patches, stats", .ownThreads)
struct ReaderTests {
    /// Three sessions: a counter with mixed actions and keyframes every 10, a login session, an empty one.
    func fixture() throws -> (TemporaryDirectory, LogReader, [Int64]) {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"))
        let a = try writer.openSession(uuid: "3f2a9c00-0000-4000-8000-00000000000a", app: "Todo", startedAt: Fixture.start)
        let b = try writer.openSession(uuid: "3f9b1d00-0000-4000-8000-00000000000b", app: "Todo", startedAt: Fixture.start.addingTimeInterval(10),
                                       replayOf: "3f2a9c00-0000-4000-8000-00000000000a")
        let c = try writer.openSession(uuid: "77aa0000-0000-4000-8000-00000000000c", app: "Chat", startedAt: Fixture.start.addingTimeInterval(20))
        var events: [LogEvent] = []
        for seq in Int64(0)..<50 {
            let type = ["todo/add", "todo/toggle", "todo/remove", "filter/set"][Int(seq % 4)]
            events.append(Fixture.event(session: a, seq: seq, type: type, keyframe: seq % 10 == 0,
                                        text: seq == 17 ? "buy milk for ada@example.com" : "item \(seq)"))
        }
        writer.append(events)
        writer.append([
            LogEvent(sessionID: b, seq: 0, at: Fixture.start, action: ["login": ["user": "ada", "quote": "say \"hi\" *now*"]],
                     hash: 1, keyframe: ["user": nil]),
            LogEvent(sessionID: b, seq: 1, at: Fixture.start, action: "logout", hash: UInt64.max),
        ])
        try writer.flush()
        writer.close()
        return (directory, try LogReader(path: directory.path("log.db")), [a, b, c])
    }

    @Test("sessions() lists counts and times")
    func sessions() throws {
        let (directory, reader, ids) = try fixture()
        defer { withExtendedLifetime(directory) {} }
        let sessions = try reader.sessions()
        #expect(sessions.map(\.id) == ids)
        #expect(sessions.map(\.eventCount) == [50, 2, 0])
        #expect(sessions.map(\.lastSeq) == [49, 1, nil])
        #expect(sessions.map(\.keyframeCount) == [5, 1, 0])
        #expect(sessions[0].lastEventAt == Fixture.start.addingTimeInterval(49))
        #expect(sessions[1].replayOf == "3f2a9c00-0000-4000-8000-00000000000a")
        #expect(sessions[2].app == "Chat")
        #expect(try reader.eventCount() == 52)
    }

    @Test("Sessions are named by id, uuid prefix (any case) or latest")
    func names() throws {
        let (directory, reader, ids) = try fixture()
        #expect(try reader.session(named: String(ids[1])).id == ids[1])
        #expect(try reader.session(named: "3f2a").id == ids[0])
        #expect(try reader.session(named: "3F9B1D").id == ids[1])
        #expect(try reader.session(named: "77aa0000-0000-4000-8000-00000000000c").id == ids[2])
        #expect(try reader.session(named: "latest").id == ids[2])
        // Digits that are no id fall back to a uuid prefix.
        #expect(try reader.session(named: "77").id == ids[2])

        let ambiguous = #expect(throws: LogError.self) { try reader.session(named: "3f") }
        #expect(ambiguous?.kind == .ambiguousSession("3f", candidates: [
            "3f2a9c00-0000-4000-8000-00000000000a (id \(ids[0]))", "3f9b1d00-0000-4000-8000-00000000000b (id \(ids[1]))",
        ]))
        #expect(ambiguous?.description.hasPrefix("Session prefix '3f' is ambiguous in ") == true)
        let unknown = #expect(throws: LogError.self) { try reader.session(named: "zz") }
        #expect(unknown?.kind == .unknownSession("zz"))
        #expect(unknown?.description == "No session named 'zz' in \(directory.path("log.db")): no id or uuid matches it.")

        let emptyLog = directory.path("empty.db")
        try LogWriter(path: emptyLog).close()
        let none = #expect(throws: LogError.self) { try LogReader(path: emptyLog).session(named: "latest") }
        #expect(none?.kind == .unknownSession("latest"))
    }

    @Test("latest is the newest session that is neither a branch nor a replay (issue 41: a replay pressed in the page named latest); a meta that is not JSON counts")
    func latestSkipsBranches() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("branches.db")
        let writer = try LogWriter(path: path)
        let start = Fixture.start
        let original = try writer.openSession(uuid: "aaaa0000-0000-4000-8000-000000000001", app: "Shop", startedAt: start)
        // A branch stamped with its original's start (the later id wins a tie), and one after.
        let branch: JSONValue = ["branch": ["of": "aaaa0000-0000-4000-8000-000000000001", "skipped": [7], "edited": []]]
        let first = try writer.openSession(uuid: "bbbb0000-0000-4000-8000-000000000002", app: "Shop", startedAt: start, meta: branch,
                                           replayOf: "aaaa0000-0000-4000-8000-000000000001")
        _ = try writer.openSession(uuid: "cccc0000-0000-4000-8000-000000000003", app: "Shop", startedAt: start.addingTimeInterval(60),
                                   meta: branch, replayOf: "aaaa0000-0000-4000-8000-000000000001")
        writer.close()
        let reader = try LogReader(path: path)
        #expect(try reader.session(named: "latest").id == original)
        let branches = try reader.sessions().filter(\.isBranch)
        #expect(branches.count == 2)
        #expect(branches.first?.branch == BranchOrigin(of: "aaaa0000-0000-4000-8000-000000000001", skipped: [7]))
        #expect(branches.first?.branch?.changes == "left out 7")
        #expect(try reader.session(named: "bbbb").id == first)

        // A replay of the recording (the page's Replay) is no branch, and not latest either: the
        // recording it replays stays latest until a new recording starts.
        let more = try LogWriter(path: path)
        let replay = try more.openSession(uuid: "dddd0000-0000-4000-8000-000000000004", app: "Shop", startedAt: start.addingTimeInterval(90),
                                          meta: ["replay": true], replayOf: "aaaa0000-0000-4000-8000-000000000001")
        #expect(try reader.session(named: "latest").id == original)
        #expect(try reader.session(id: replay).isBranch == false)
        let next = try more.openSession(uuid: "ffff0000-0000-4000-8000-000000000006", app: "Shop", startedAt: start.addingTimeInterval(120))
        more.close()
        #expect(try reader.session(named: "latest").id == next)

        // Only branches: latest says so.
        let onlyPath = directory.path("only.db")
        let only = try LogWriter(path: onlyPath)
        _ = try only.openSession(uuid: "eeee0000-0000-4000-8000-000000000005", app: "Shop", startedAt: start, meta: branch,
                                 replayOf: "aaaa0000-0000-4000-8000-000000000001")
        only.close()
        let refused = #expect(throws: LogError.self) { try LogReader(path: onlyPath).session(named: "latest") }
        #expect(refused?.description.contains("the log holds only branches and replays; name one by its id or uuid") == true)
    }

    @Test("events() filters by seq range, type glob, text and limit")
    func filters() throws {
        let (directory, reader, ids) = try fixture()
        defer { withExtendedLifetime(directory) {} }
        let a = ids[0]
        #expect(try reader.events(session: a).count == 50)
        #expect(try reader.events(session: a, from: 10, to: 14).map(\.seq) == [10, 11, 12, 13, 14])
        #expect(try reader.events(session: a, typeGlob: "todo/*").count == 38)
        #expect(try reader.events(session: a, typeGlob: "todo/t*").map(\.seq) == Array(stride(from: 1, to: 50, by: 4)))
        #expect(try reader.events(session: a, typeGlob: "filter/set", limit: 3).map(\.seq) == [3, 7, 11])
        #expect(try reader.events(session: a, text: "milk").map(\.seq) == [17])
        #expect(try reader.events(session: a, text: "ADA@example.com").map(\.seq) == [17])
        #expect(try reader.events(session: a, text: "milk item").isEmpty)
        #expect(try reader.events(session: a, text: "item", limit: 2).map(\.seq) == [0, 1])
        #expect(try reader.events(session: a, typeGlob: "todo/add", text: "item").count == 13)
        // Text in another session does not leak in; FTS5 syntax in the text is taken literally.
        #expect(try reader.events(session: ids[1], text: "milk").isEmpty)
        #expect(try reader.events(session: ids[1], text: "\"hi\" *now* AND OR NEAR(").isEmpty)
        #expect(try reader.events(session: ids[1], text: "say \"hi\" *now*").map(\.seq) == [0])
        #expect(try reader.events(session: ids[1], text: "   ").count == 2)
        #expect(try reader.events(session: ids[1], typeGlob: "log*").map(\.actionType) == ["login", "logout"])
        let logout = try #require(try reader.event(session: ids[1], seq: 1))
        #expect(logout.hash == UInt64.max)
        #expect(logout.action == "logout")
    }

    @Test("keyframe(atOrBefore:) and the patch cursor rebuild a state")
    func keyframesAndPatches() throws {
        let (directory, reader, ids) = try fixture()
        defer { withExtendedLifetime(directory) {} }
        let a = ids[0]
        #expect(try reader.keyframe(atOrBefore: 0, session: a)?.seq == 0)
        #expect(try reader.keyframe(atOrBefore: 29, session: a)?.seq == 20)
        #expect(try reader.keyframe(atOrBefore: 30, session: a)?.seq == 30)
        #expect(try reader.keyframe(atOrBefore: 5, session: ids[2]) == nil)
        let keyframe = try #require(try reader.keyframe(atOrBefore: 37, session: a))
        #expect(keyframe.state == ["count": 30, "title": "counter"])
        let steps = try reader.patches(session: a, from: keyframe.seq + 1, to: 37).all()
        #expect(steps.map(\.seq) == Array(31...37))
        // The fixture's patches replace /count: the last one gives the count at 37.
        #expect(steps.last?.patch == [["op": "replace", "path": "/count", "value": 37]])
        #expect(steps.last?.hash == (["count": 37, "title": "counter"] as JSONValue).stableHash)
        let back = try reader.patches(session: a, from: 35, to: 37, descending: true).all()
        #expect(back.map(\.seq) == [37, 36, 35])
        #expect(back.first?.inverse == [["op": "replace", "path": "/count", "value": 36]])
        #expect(try reader.event(session: a, seq: 20)?.keyframe == ["count": 20, "title": "counter"])
        let plain = try #require(try reader.event(session: a, seq: 21))
        #expect(plain.keyframe == Optional<JSONValue>.none)
    }

    @Test("stats() counts rows and splits the bytes between events, keyframes and the text index")
    func stats() throws {
        let (directory, reader, _) = try fixture()
        defer { withExtendedLifetime(directory) {} }
        let stats = try reader.stats()
        #expect(stats.sessions == 3)
        #expect(stats.events == 52)
        #expect(stats.keyframes == 6)
        #expect(stats.measuredByPages)
        #expect(stats.eventBytes > 0 && stats.keyframeBytes > 0 && stats.textIndexBytes > 0)
        #expect(stats.eventPayloadBytes > stats.keyframePayloadBytes)
        #expect(stats.pageSize == LogSchema.pageSize)
        #expect(stats.fileBytes > 0)
    }
}
