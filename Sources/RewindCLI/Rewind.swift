import ArgumentParser
import Foundation

@main
struct RewindCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewind",
        abstract: "Time-travel debugging for state-store apps: record, inspect, diff and replay.",
        version: RewindVersion.text,
        subcommands: [
            SessionsCommand.self, LogCommand.self, StateCommand.self, DiffCommand.self, BlameCommand.self,
            VerifyCommand.self, StatsCommand.self, ImportCommand.self, ExportCommand.self, PruneCommand.self,
            PatchCommand.self, FmtCommand.self, ServeCommand.self, DemoCommand.self, TailCommand.self,
            ReplayCommand.self, TestCommand.self, FindCommand.self, BranchCommand.self, PushCommand.self,
        ]
    )

    /// Runs the command; a ``CLIError`` prints its one sentence on stderr and exits with its code.
    ///
    /// What a command's error says is escaped (``TerminalText``): its sentence may quote a
    /// session's app name, a server's or an app's message, or a file's content.
    static func main() {
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        do {
            try command.run()
        } catch let error as CLIError {
            FileHandle.standardError.write(Data((TerminalText.escaped(error.message) + "\n").utf8))
            Foundation.exit(error.code)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if !message.isEmpty {
                let handle = code == .success ? FileHandle.standardOutput : FileHandle.standardError
                handle.write(Data((TerminalText.escapedLines(message) + "\n").utf8))
            }
            Foundation.exit(code.rawValue)
        }
    }
}
