import ArgumentParser
import Foundation
import RewindJSON
import RewindLog
import RewindReplay

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Replay sessions and check that their record is sound.",
        discussion: """
        Replays every patch of the session (of every session when none is named) from its first \
        keyframe and checks that seqs run from 0 without gaps, that each patch and its inverse \
        apply (the inverse leading back to the state before), that each stored hash is the hash \
        of the state the patches give, and that each keyframe equals that state.

        Prints one line per session: 'ok' with its counts, or the first problem by seq, such as \
        'seq 1203: hash does not match the state the patches give'. Exits 0 when every session \
        passes, 1 when one does not (the first problem is also printed on standard error), 2 \
        when the log or the session cannot be opened. Shows progress on standard error when it \
        is a terminal.

        With --json, one object per session per line: session, uuid, app, ok, events, keyframes, \
        and problem ({seq, message}) or null.

        Example: rewind verify latest
        """
    )

    @OptionGroup var log: LogLocation

    @Argument(help: "The session to check (an id, a uuid prefix or 'latest'); every session when left out.")
    var session: String?

    @Flag(help: "Print one JSON object per session, one per line.")
    var json = false

    func run() throws {
        let reader = try log.openReader()
        let sessions: [SessionInfo]
        if let session {
            sessions = [try reader.resolveSession(session)]
        } else {
            do {
                sessions = try reader.sessions()
            } catch {
                throw CLIError(error.description, code: 2)
            }
        }
        let progress = ProgressLine()
        var firstFailure: String?
        for info in sessions {
            let name = "session \(info.id) (\(shown: info.uuid.prefix(8)), \(shown: info.app))"
            let outcome: Result<VerifyReport, ReplayError>
            do {
                let timeline = try Timeline(reader: reader, session: info.id)
                outcome = .success(try timeline.verify { step in
                    let percent = step.total == 0 ? 100 : step.checked * 100 / step.total
                    progress.update("verifying \(name): \(percent)% (\(OutputFormat.count(step.checked)) of \(OutputFormat.count(step.total)) events)")
                })
            } catch {
                outcome = .failure(error)
            }
            progress.clear()
            let problem: String?
            switch outcome {
            case .success(let report): problem = report.problem?.description
            case .failure(let error): problem = error.description
            }
            if let problem, firstFailure == nil { firstFailure = "\(name): \(problem)" }
            if json {
                var object: JSONObject = [
                    "session": OutputFormat.number(info.id), "uuid": .string(info.uuid), "app": .string(info.app),
                    "ok": .bool(problem == nil),
                ]
                if case .success(let report) = outcome {
                    object["events"] = OutputFormat.number(report.eventsChecked)
                    object["keyframes"] = OutputFormat.number(report.keyframesChecked)
                }
                if case .success(let report) = outcome, let found = report.problem {
                    object["problem"] = ["seq": OutputFormat.number(found.seq), "message": .string(found.description)]
                } else if let problem {
                    object["problem"] = ["seq": .null, "message": .string(problem)]
                } else {
                    object["problem"] = .null
                }
                writeJSONLine(.object(object))
            } else if case .success(let report) = outcome, report.passed {
                writeEscapedOutput("\(name): ok, \(OutputFormat.count(report.eventsChecked)) events, \(OutputFormat.count(report.keyframesChecked)) keyframes\n")
            } else {
                writeEscapedOutput("\(name): FAILED: \(problem ?? "")\n")
            }
        }
        if let firstFailure { throw CLIError(firstFailure, code: 1) }
    }
}
