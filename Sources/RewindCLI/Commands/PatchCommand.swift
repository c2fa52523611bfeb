import ArgumentParser
import Foundation
import RewindJSON

struct PatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patch",
        abstract: "Apply an RFC 6902 JSON Patch to a document and print the result.",
        discussion: """
        Applies the operations of PATCH to DOC in order, all or nothing, and prints the patched \
        document (pretty unless --compact). A patch that does not apply, or is not a valid patch, \
        exits 1 naming the operation: 'p.json: operation 3 (replace /a/b): path does not exist'. \
        An unreadable file or invalid JSON exits 2. The document may be a recorded state, \
        SESSION@SEQ (such as latest@12), rebuilt from the log.

        Example: rewind diff a.json b.json --format patch > p.json && rewind patch a.json p.json
        """
    )

    @OptionGroup var log: LogLocation

    @Argument(help: "The document to patch: a file, '-' for standard input, or a recorded state SESSION@SEQ.")
    var document: DocumentReference

    @Argument(help: "The JSON Patch: an array of operations ('-' for standard input).")
    var patch: DocumentReference

    @Flag(help: "Print on one line with no whitespace.")
    var compact = false

    func run() throws {
        try [document, patch].checkSingleStandardInput()
        let recorded = RecordedStates(log: log)
        let value = try document.load(recorded: recorded)
        let patchJSON = try patch.load(recorded: recorded)
        let result: JSONValue
        do {
            result = try JSONPatch(json: patchJSON).apply(to: value)
        } catch {
            throw CLIError("\(patch): \(error)", code: 1)
        }
        // Terminal-safe: the same value, with nothing in it a terminal would act on.
        var out = result.serializedBytes(compact ? .terminal : .terminalPretty)
        out.append(UInt8(ascii: "\n"))
        FileHandle.standardOutput.write(Data(out))
    }
}
