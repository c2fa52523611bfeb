import ArgumentParser
import Foundation
import RewindJSON
import RewindLog

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a recording (JSONL or a Redux DevTools export) as a new session.",
        discussion: """
        JSONL: one JSON object per line, {"action": …, "state": …, "at": seconds since 1970}. \
        'state' is required; 'at' is optional (a line without it happened at the previous line's \
        time). The first line may leave out 'action': it is then the initial state, seq 0; \
        otherwise seq 0 is an empty object {} and the first line is seq 1. Blank lines are skipped.

        Redux DevTools: the file its Export button writes, either the lifted state (actionsById, \
        computedStates, stagedActionIds, …) or {"payload": "…", "preloadedState": "…"}. Staged \
        action i produced computedStates[i]; the first is the init action, seq 0; skipped \
        actions are imported too (DevTools gives them the state before them).

        Without --format, a JSON object with 'actionsById' or 'payload' is read as Redux \
        DevTools, anything else as JSONL. The whole file is checked before anything is written: \
        a bad line or action is reported with its line number or action id, exit 1, and nothing \
        of the file is stored. A missing file or an unusable log exits 2. On success, prints the \
        new session's id and uuid; `rewind export ID` gives the file back. The session keeps \
        the recording's times (it starts at seq 0's), so name it by id rather than 'latest'.

        Example: rewind import trace.jsonl --app Todo    (then: rewind export ID > again.jsonl)
        """
    )

    @Argument(help: "The file to import ('-' for standard input).")
    var file: String

    @Option(help: "jsonl or redux-devtools (default: guessed from the content).")
    var format: FileFormatOption?

    @Option(help: "The app name stored with the session (default: the file's name without its extension).")
    var app: String?

    @Flag(help: "Print the new session as JSON.")
    var json = false

    @OptionGroup var log: LogLocation

    func run() throws {
        let name = file == "-" ? "<stdin>" : file
        let fileName = file == "-" ? nil : (file as NSString).lastPathComponent
        let bytes = try readInput(file)
        let progress = ProgressReporter.forTerminal("rewind import")
        defer { progress?.finish() }

        let session: ImportedSession
        do {
            let options = ImportOptions(file: fileName, progress: progress.map { reporter in
                { count in reporter.update(count, unit: "records read") }
            })
            session = try SessionImport.parse(bytes, format: format?.format, options: options)
        } catch {
            throw CLIError("\(name): \(error); nothing was imported.", code: 1)
        }

        progress?.show("writing \(session.events.count) events…")
        let writer = try log.openWriter()
        defer { writer.close() }
        let uuid = UUID().uuidString.lowercased()
        let appName = app ?? defaultAppName(fileName)
        let id: Int64
        do {
            id = try writer.write(session, uuid: uuid, app: appName)
        } catch {
            throw CLIError("\(error.description) Nothing of \(name) was imported.", code: 2)
        }
        progress?.finish()

        let count = session.events.count
        if json {
            let result: JSONValue = [
                "id": .number(JSONNumber(id)), "uuid": .string(uuid), "app": .string(appName),
                "format": .string(session.importMeta.format.rawValue), "events": .number(JSONNumber(count)),
                "syntheticInitial": .bool(session.importMeta.syntheticInitial),
            ]
            writeStandardOutput(jsonLine(result))
        } else {
            let initial = session.importMeta.syntheticInitial ? "; seq 0 is the empty initial state {}" : ""
            writeEscapedOutput("Imported \(shown: name) as session \(id) (uuid \(shown: uuid)): \(count) \(count == 1 ? "event" : "events"), seq 0 to \(count - 1)\(initial).\n")
        }
    }

    /// The file's name without its extension, or `import` for standard input.
    private func defaultAppName(_ fileName: String?) -> String {
        guard let fileName else { return "import" }
        let stem = (fileName as NSString).deletingPathExtension
        return stem.isEmpty ? fileName : stem
    }
}
