import Foundation
import RewindJSON

/// Copies sessions from one log to another, whole: the session's uuid, app, start, meta (and so
/// its tags), replay origin, run, state hash version and end, and every event with its keyframe,
/// non-finite marks and send site, seqs and hashes unchanged (`rewind push --to`, from a laptop's
/// file to a team's database or back). Only the session's id is the target's own.
///
/// A session is known by its uuid. One the target already holds whole is skipped; one it holds
/// in part (an earlier copy that stopped, or an app whose server stored only the start) gets
/// the events it lacks, once the last event both hold has the same state hash in each. Events go
/// in pages of ``pageSize``, each committed before the next is read, so a session of any length
/// needs the memory of one page.
///
/// ```swift
/// let outcome = try SessionCopy(source: fileReader, target: databaseWriter, targetReader: databaseReader)
///     .copy(try fileReader.session(named: "latest"))
/// ```
package struct SessionCopy {
    /// What happened to one session.
    package enum Outcome: Sendable, Equatable {
        /// The target did not hold it; it now holds every event (`events` of them) under `id`.
        case copied(id: Int64, events: Int)
        /// The target held its first `had` events; the other `added` were appended.
        case completed(id: Int64, had: Int, added: Int)
        /// The target already held every event (`held` of them).
        case skipped(id: Int64, held: Int)
        /// It could not be copied: one sentence. `stored` events of it are in the target.
        case failed(String, stored: Int)
    }

    /// The log read from.
    package let source: LogReader
    /// The log written to.
    package let target: any LogStoreWriter
    /// A reader of the target, which says what it holds.
    package let targetReader: LogReader
    /// Events per page.
    package var pageSize = 1_000

    package init(source: LogReader, target: any LogStoreWriter, targetReader: LogReader) {
        self.source = source
        self.target = target
        self.targetReader = targetReader
    }

    /// Copies `session` (of ``source``) into the target. A session that cannot be copied is a
    /// ``Outcome/failed(_:stored:)``; only a log that cannot be read or reached at all throws.
    package func copy(_ session: SessionInfo) throws(LogError) -> Outcome {
        let count = session.eventCount
        let held = try targetReader.session(uuid: session.uuid)
        if let held {
            if let problem = try mismatch(session, held) { return .failed(problem, stored: held.eventCount) }
            if held.eventCount >= count {
                return .skipped(id: held.id, held: held.eventCount)
            }
        }
        let id: Int64
        do {
            // The owner goes along as its digest: the secret stays on the app's device.
            let owner = try source.owner(session: session.id).map { SessionOwner(secret: nil, digest: $0.digest) }
            id = try target.openSession(uuid: session.uuid, app: session.app, startedAt: session.startedAt, meta: session.meta,
                                        replayOf: session.replayOf, run: session.run, hashVersion: session.hashVersion, owner: owner)
        } catch where error.kind != .unreachable {
            return .failed(error.description, stored: held?.eventCount ?? 0)
        }
        defer { target.release(session: id) }
        let had: Int
        do {
            // What the target holds now, through its writer: another copy may have added some.
            had = Int(try target.nextSeq(session: id))
        } catch where error.kind != .unreachable {
            return .failed(error.description, stored: held?.eventCount ?? 0)
        }
        var next = Int64(had)
        while next < Int64(count) {
            let last = min(Int64(count) - 1, next + Int64(max(pageSize, 1)) - 1)
            var page = try source.events(session: session.id, from: next, to: last, includeKeyframes: true)
            guard page.first?.seq == next else {
                return .failed("session \(session.id) of \(source.path) has no event \(next), though it holds \(count) events", stored: Int(next))
            }
            for index in page.indices { page[index].sessionID = id }
            let result = CallResult<Bool>()
            target.append(page) { outcome in result.fulfil(outcome.map { true }) }
            do {
                try target.commit()
                _ = try result.wait().get()
            } catch where error.kind != .unreachable {
                return .failed(error.description, stored: Int(next))
            }
            next = page[page.count - 1].seq + 1
        }
        if let endedAt = session.endedAt, held?.endedAt != endedAt {
            do {
                try target.endSession(id: id, at: endedAt)
            } catch where error.kind != .unreachable {
                return .failed(error.description, stored: count)
            }
        }
        if had == 0 && held == nil { return .copied(id: id, events: count) }
        return .completed(id: id, had: had, added: count - had)
    }

    /// Why the target's session with the same uuid is not this session, or `nil` when it is (as
    /// far as both hold it): its hash version, run and the state hash of the last event both hold
    /// must agree.
    private func mismatch(_ session: SessionInfo, _ held: SessionInfo) throws(LogError) -> String? {
        let other = "\(targetReader.path) holds another session under uuid \(session.uuid)"
        if held.hashVersion != session.hashVersion {
            return "\(other): it records state hash version \(held.hashVersion.rawValue), this one \(session.hashVersion.rawValue)"
        }
        if held.run != session.run {
            return "\(other): it was recorded \(held.run.map { "in run \($0)" } ?? "with no run"), this one \(session.run.map { "in run \($0)" } ?? "with no run")"
        }
        let shared = min(held.eventCount, session.eventCount) - 1
        guard shared >= 0 else { return nil }
        let mine = try source.events(session: session.id, from: Int64(shared), to: Int64(shared)).first
        let theirs = try targetReader.events(session: held.id, from: Int64(shared), to: Int64(shared)).first
        if let mine, let theirs, mine.hash != theirs.hash {
            return "\(other): their states differ at seq \(shared)"
        }
        return nil
    }
}
