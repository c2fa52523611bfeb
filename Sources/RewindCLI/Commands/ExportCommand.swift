import ArgumentParser
import Foundation
import RewindLog

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a session as JSONL or as a Redux DevTools export.",
        discussion: """
        JSONL: one line per state, {"action": …, "state": …, "at": seconds since 1970}; the \
        first line is seq 0, the initial state, without an action. A session made by \
        `rewind import` comes back as the file it came from: line for line, byte for byte when \
        the file was compact (as JSON.stringify writes it).

        redux-devtools: the lifted state that the Redux DevTools' Import button reads \
        (actionsById with PERFORM_ACTION wrappers and timestamps in milliseconds, computedStates \
        with every state, stagedActionIds 0…n).

        The default format is the one the session was imported from, else jsonl. SESSION is an \
        id, a uuid prefix or 'latest'. The output is streamed; with -o the file appears only \
        once it is complete. On a terminal, the characters a terminal would act on (C0 and C1 \
        controls, DEL, the bidirectional formatting characters) are written as JSON \\u escapes \
        (the same JSON); to a file or a pipe the export is byte for byte. An unknown session or \
        an unusable log exits 2; a stored patch that does not rebuild its state exits 1, naming \
        the seq.

        Example: rewind export latest --format redux-devtools -o todo-devtools.json
        """
    )

    @Argument(help: "The session: an id, a uuid prefix or 'latest'.")
    var session: String

    @Option(help: "jsonl or redux-devtools (default: the format it was imported from, else jsonl).")
    var format: FileFormatOption?

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write to this file instead of standard output ('-' for standard output).", valueName: "file"))
    var output: String?

    @OptionGroup var log: LogLocation

    func run() throws {
        let reader = try log.openReader()
        let info = try reader.resolveSession(session)
        let chosen = format?.format ?? ImportMeta(sessionMeta: info.meta)?.format ?? .jsonl
        let destination = try OutputDestination(path: output)
        let progress = ProgressReporter.forTerminal("rewind export")
        defer { progress?.finish() }
        var exporter = SessionExporter(reader: reader, session: info)
        if let progress {
            let unit = chosen == .jsonl ? "events" : "actions and states"
            exporter.progress = { done, total in progress.update(done, of: total, unit: unit) }
        }
        // An export is data: to a file or a pipe it goes byte for byte. On a terminal, whatever
        // in it a terminal would act on is written as a JSON `\u` escape (the same JSON value).
        var terminal = (output == nil || output == "-") && isatty(STDOUT_FILENO) == 1 ? TerminalJSONStream() : nil
        do {
            try exporter.write(chosen) { chunk in
                try destination.write(terminal?.filter(chunk) ?? chunk)
            }
            if let rest = terminal?.finish(), !rest.isEmpty { try destination.write(rest) }
        } catch let error as CLIError {
            throw error
        } catch let error as ExportError {
            throw CLIError("\(error).", code: 1)
        } catch {
            throw CLIError("\(error)", code: 2)
        }
        try destination.commit()
    }
}
