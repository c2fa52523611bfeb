import Foundation
import Rewind
import RewindLog
import Testing
@testable import RewindDemo
import RewindTestSupport

/// The runner records every app into one log: sessions named and versioned, action types
/// named after the app, effects' answers carrying their cause, hashes as the state log says.
@MainActor
@Suite(.ownThreads) struct DemoRecordingTests {
    func temporaryPath(_ name: String) throws -> (folder: URL, path: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-demo-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (folder, folder.appendingPathComponent(name).path)
    }

    @Test("the runner records each app into one log") func theRunnerRecordsEachAppIntoOneLog() async throws {
        let (folder, db) = try temporaryPath("demo.db")
        defer { try? FileManager.default.removeItem(at: folder) }
        let stateLogPath = folder.appendingPathComponent("states.jsonl").path
        let runner = DemoRunner(apps: DemoAppKind.allCases, destination: .file(db), rate: 200, seed: 4,
                                latencyMs: 0...5, stateLog: try DemoStateLog(path: stateLogPath))
        let started = runner.start()
        #expect(started.map(\.app) == DemoAppKind.allCases)
        // Run until every app has recorded 40 actions (a breweries user types a dozen letters
        // first). Effects run on the shared pool, which the other suites' blocking tests can hold
        // for long: the deadline is generous.
        let deadline = ContinuousClock.now.advanced(by: .seconds(120))
        while runner.apps.contains(where: { $0.recordedCount < 40 }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let finalHashes = runner.apps.map(\.stateHash)
        let summaries = runner.stop()
        // Observation hops queued before the stop must write nothing more: let every main-actor
        // job queued by now run, then the state log must be as the stop left it.
        let linesAtStop = try String(contentsOfFile: stateLogPath, encoding: .utf8)
        for _ in 0..<200 { await Task.yield() }
        #expect(try String(contentsOfFile: stateLogPath, encoding: .utf8) == linesAtStop)

        let reader = try LogReader(path: db)
        for (index, summary) in summaries.enumerated() {
            let session = try reader.session(named: summary.session)
            #expect(session.app == summary.app.title)
            #expect(session.endedAt != nil)
            #expect(session.meta["version"] == "1.0.0")
            #expect(session.meta["demo"] == .string(summary.app.rawValue))
            #expect(session.eventCount == summary.events)
            #expect(summary.events > 40)
            let events = try reader.events(session: session.id)
            #expect(events.dropFirst().allSatisfy { $0.actionType.hasPrefix(summary.app.rawValue + "/") })
            // Answers to requests name the request as their cause.
            let answers = events.filter { $0.actionType.hasSuffix("/succeeded") || $0.actionType.hasSuffix("/loaded") }
            #expect(!answers.isEmpty)
            for answer in answers {
                let cause = try #require(answer.cause)
                #expect(cause < answer.seq)
                #expect(events[Int(cause)].cause == nil)
            }
            // The last recorded hash is the hash the apps report.
            #expect(String(format: "%016llx", events.last!.hash) == finalHashes[index])
        }

        // The state log: one line per change, every hash a recorded one, ending at the last state.
        let lines = try String(contentsOfFile: stateLogPath, encoding: .utf8).split(separator: "\n")
        for (index, summary) in summaries.enumerated() {
            let mine = lines.filter { $0.contains("\"session\":\"\(summary.session)\"") }
            #expect(mine.count > 5)
            #expect(mine.allSatisfy { $0.hasPrefix("{\"app\":\"\(summary.app.rawValue)\"") && $0.hasSuffix("\"locked\":false}") })
            #expect(mine.last?.contains("\"hash\":\"\(finalHashes[index])\"") == true)
            let session = try reader.session(named: summary.session)
            let recorded = Set(try reader.events(session: session.id).map { String(format: "%016llx", $0.hash) })
            let logged = mine.compactMap { line in line.range(of: "\"hash\":\"").map { String(line[$0.upperBound...].prefix(16)) } }
            #expect(Set(logged).isSubset(of: recorded))
        }
    }

    @Test("every recorded action decodes back to the same JSON") func everyRecordedActionDecodesBackToTheSameJSON() async throws {
        let (folder, db) = try temporaryPath("codable.db")
        defer { try? FileManager.default.removeItem(at: folder) }
        let apps: [any DemoApp] = DemoAppKind.allCases.map { $0.make(seed: 6, latencyMs: 0...0) }
        for app in apps {
            app.startRecording(to: .file(db), seed: 6)
            for _ in 0..<120 {
                app.userStep()
                await app.settle()
            }
        }
        let sessions = apps.compactMap(\.sessionUUID)
        for app in apps { app.stopRecording() }
        let reader = try LogReader(path: db)
        var checked = 0
        for (app, uuid) in zip(apps, sessions) {
            let session = try reader.session(named: uuid)
            for event in try reader.events(session: session.id).dropFirst() {
                #expect(try app.roundTrip(event.action) == event.action, "\(event.actionType)")
                checked += 1
            }
        }
        #expect(checked > 200)
    }

    @Test("jumps and resumes are observed with the recorded hash") func jumpsAndResumesAreObservedWithTheRecordedHash() async throws {
        let (folder, db) = try temporaryPath("jump.db")
        defer { try? FileManager.default.removeItem(at: folder) }
        let app = OrdersViewModel(network: FakeNetwork(seed: 2, latencyMs: 0...0, failures: .none), user: DemoRandom(seed: 2))
        app.startRecording(to: .file(db), seed: 2)
        app.loadOrders()
        await app.store.settle()
        let liveHash = app.stateHash
        let changes = Changes()
        app.observeState {
            changes.seen.append((app.stateHash, app.isLocked))
            return true
        }
        let uuid = try #require(app.sessionUUID)
        app.store.recorder?.flush()
        let reader = try LogReader(path: db)
        let session = try reader.session(named: uuid)
        let initial = try #require(try reader.keyframe(atOrBefore: 0, session: session.id))
        let initialHash = String(format: "%016llx", try #require(try reader.event(session: session.id, seq: 0)).hash)

        try app.store.jump(to: initial.state)
        try await waitUntil { changes.seen.count == 1 }
        #expect(changes.seen.last?.locked == true)
        #expect(changes.seen.last?.hash == initialHash)
        #expect(app.store.state.orders.isEmpty)

        app.store.resume()
        try await waitUntil { changes.seen.count == 2 }
        #expect(changes.seen.last?.locked == false)
        #expect(changes.seen.last?.hash == liveHash)
        app.stopRecording()
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimeoutError() }
            await Task.yield()
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    struct TimeoutError: Error {}

    @MainActor final class Changes {
        var seen: [(hash: String, locked: Bool)] = []
    }
}

extension DemoApp {
    /// The action JSON decoded as this app's `Action` and encoded again.
    func roundTrip(_ json: JSONValue) throws -> JSONValue {
        try JSONValueEncoder().encode(JSONValueDecoder().decode(Action.self, from: json))
    }
}
