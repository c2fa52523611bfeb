import ArgumentParser
import Foundation
import RewindJSON

struct FmtCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fmt",
        abstract: "Validate a JSON file and print it pretty (or compact).",
        discussion: """
        Reads FILE (or standard input for '-'), checks that it is strict JSON (RFC 8259) and
        prints it with two-space indentation. Invalid input exits 1 with FILE:LINE:COLUMN: message.

        Example: rewind fmt state.json --sort-keys
        """
    )

    @Argument(help: "The JSON file to format, or '-' for standard input.")
    var file: String

    @Flag(help: "Print on one line with no whitespace.")
    var compact = false

    @Flag(help: "Sort object keys by code point.")
    var sortKeys = false

    func run() throws {
        let bytes = try readInput(file)
        do {
            let value = try JSONValue(parsing: bytes)
            // Terminal-safe: the same value, with nothing in it a terminal would act on.
            var out = value.serializedBytes(JSONWriteOptions(pretty: !compact, sortKeys: sortKeys, escapesTerminalControls: true))
            out.append(UInt8(ascii: "\n"))
            FileHandle.standardOutput.write(Data(out))
        } catch {
            let name = file == "-" ? "<stdin>" : file
            throw CLIError("\(name):\(error.line):\(error.column): \(error.message)")
        }
    }
}
