import ArgumentParser
import Foundation
import RewindJSON

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two JSON documents.",
        discussion: """
        Prints one line per change: '~ PATH: OLD → NEW', '+ PATH: NEW', '- PATH: OLD' (paths are \
        JSON Pointers; a removal shows where the value was in A). With --format patch it prints the \
        RFC 6902 patch that turns A into B, with --format inverse the patch that turns B back into A.

        Exits 0 when the documents are equal, 1 when they differ, 2 on trouble (an unreadable \
        file, or invalid JSON: FILE:LINE:COLUMN: message), as diff(1) does.

        Example: rewind diff before.json after.json --format patch
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, patch, inverse
    }

    @Argument(help: "The document before ('-' for standard input).")
    var a: DocumentReference

    @Argument(help: "The document after ('-' for standard input).")
    var b: DocumentReference

    @Option(help: "What to print: text, patch (A → B) or inverse (B → A).")
    var format: Format = .text

    @Option(help: "Colour the text format: auto (when standard output is a terminal), always or never.")
    var color: ColorChoice = .auto

    func run() throws {
        try [a, b].checkSingleStandardInput()
        let before = try a.load()
        let after = try b.load()
        let diff = JSONDiff(from: before, to: after)
        switch format {
        case .text: writeStandardOutput(ChangeRenderer(colored: color.enabled).render(diff.changes))
        case .patch: writeStandardOutput(diff.forward.lineByLineText)
        case .inverse: writeStandardOutput(diff.inverse.lineByLineText)
        }
        if !diff.isEmpty { throw ExitCode(1) }
    }
}
