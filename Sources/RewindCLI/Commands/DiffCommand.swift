import ArgumentParser
import Foundation
import RewindJSON

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two JSON documents or recorded states.",
        discussion: """
        Prints one line per change: '~ PATH: OLD → NEW', '+ PATH: NEW', '- PATH: OLD' (paths are \
        JSON Pointers; a removal shows where the value was in A). With --format patch it prints the \
        RFC 6902 patch that turns A into B, with --format inverse the patch that turns B back into A.

        Either side may be a recorded state, SESSION@SEQ (SESSION is an id, a uuid prefix or \
        'latest'; SEQ a seq or 'last'), rebuilt from the log.

        Exits 0 when the documents are equal, 1 when they differ, 2 on trouble (an unreadable \
        file, invalid JSON: FILE:LINE:COLUMN: message, or a state not in the log), as diff(1) does.

        Examples: rewind diff before.json after.json --format patch
                  rewind diff latest@3 latest@10
                  rewind diff expected.json latest@last
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, patch, inverse
    }

    @OptionGroup var log: LogLocation

    @Argument(help: "The document before: a file, '-' for standard input, or SESSION@SEQ.")
    var a: DocumentReference

    @Argument(help: "The document after: a file, '-' for standard input, or SESSION@SEQ.")
    var b: DocumentReference

    @Option(help: "What to print: text, patch (A → B) or inverse (B → A).")
    var format: Format = .text

    @Option(help: "Colour the text format: auto (when standard output is a terminal), always or never.")
    var color: ColorChoice = .auto

    func run() throws {
        try [a, b].checkSingleStandardInput()
        let recorded = RecordedStates(log: log)
        let before = try a.load(recorded: recorded)
        let after = try b.load(recorded: recorded)
        let diff = JSONDiff(from: before, to: after)
        switch format {
        case .text: writeStandardOutput(ChangeRenderer(colored: color.enabled).render(diff.changes))
        case .patch: writeStandardOutput(diff.forward.lineByLineText)
        case .inverse: writeStandardOutput(diff.inverse.lineByLineText)
        }
        if !diff.isEmpty { throw ExitCode(1) }
    }
}
