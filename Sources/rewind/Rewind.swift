import ArgumentParser
import Foundation

@main
struct RewindCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewind",
        abstract: "Time-travel debugging for state-store apps: record, inspect, diff and replay.",
        subcommands: [FmtCommand.self, DiffCommand.self, PatchCommand.self, ImportCommand.self, ExportCommand.self, PruneCommand.self]
    )

    /// Runs the command; a ``CLIError`` prints its one sentence on stderr and exits with its code.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as CLIError {
            FileHandle.standardError.write(Data((error.message + "\n").utf8))
            Foundation.exit(error.code)
        } catch {
            exit(withError: error)
        }
    }
}
