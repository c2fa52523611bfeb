import ArgumentParser
import Foundation

@main
struct RewindCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewind",
        abstract: "Time-travel debugging for state-store apps: record, inspect, diff and replay.",
        subcommands: [
            SessionsCommand.self, LogCommand.self, StateCommand.self, DiffCommand.self, BlameCommand.self,
            VerifyCommand.self, StatsCommand.self, ImportCommand.self, ExportCommand.self, PruneCommand.self,
            PatchCommand.self, FmtCommand.self, ServeCommand.self, DemoCommand.self, TailCommand.self,
            ReplayCommand.self, TestCommand.self, FindCommand.self, BranchCommand.self,
        ]
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
