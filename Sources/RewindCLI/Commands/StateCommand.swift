import ArgumentParser
import Foundation
import RewindJSON
import RewindReplay

struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Print the state after a recorded event, rebuilt from the log.",
        discussion: """
        Names the state as SESSION@SEQ: SESSION is an id, a uuid prefix or 'latest', SEQ a seq \
        or 'last'. The state is rebuilt from the nearest keyframe and the patches between, and \
        printed as pretty JSON (one line with --compact). --path prints only the value at a JSON \
        Pointer (RFC 6901).

        With --json, one object: session, seq, path and value.

        Exits 2 when the session or seq does not exist, the pointer is not one, or names nothing \
        in that state.

        Example: rewind state latest@42 --path /user/name
        """
    )

    @OptionGroup var log: LogLocation

    @Argument(help: "The state: SESSION@SEQ, such as latest@42 or 3@last.")
    var reference: String

    @Option(help: "Print only the value at this JSON Pointer (for example /todos/0).")
    var path: String?

    @Flag(help: "Print on one line with no whitespace.")
    var compact = false

    @Flag(help: "Print one JSON object with the session, seq, path and value.")
    var json = false

    func run() throws {
        guard let parsed = StateReference(parsing: reference) else {
            throw CLIError("'\(reference)' does not name a state: write SESSION@SEQ, such as latest@42 or 3@last", code: 2)
        }
        let pointer = try path.map(parsePointer) ?? .root
        var access = try ReplayAccess(log: log)
        let (timeline, seq, state) = try access.state(parsed)
        guard let value = pointer.resolve(in: state) else {
            throw CLIError("\(pointer) names nothing in the state after seq \(seq) of session \(timeline.sessionID)", code: 2)
        }
        if json {
            writeJSONLine(["session": OutputFormat.number(timeline.sessionID), "seq": OutputFormat.number(seq),
                           "path": .string(pointer.description), "value": value])
            return
        }
        // Terminal-safe: the same value, with nothing in it a terminal would act on.
        var out = value.serializedBytes(compact ? .terminal : .terminalPretty)
        out.append(UInt8(ascii: "\n"))
        FileHandle.standardOutput.write(Data(out))
    }
}
