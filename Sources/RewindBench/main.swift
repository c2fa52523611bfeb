import Foundation

// rewind-bench [--json] [--filter TEXT] [--list]
// Every group registered here runs in one process, so each figure and its baseline are
// measured in the same run on the same machine.
let groups: [BenchGroup] = [
    JSONBenchmarks.group,
    .diff,
    LogBenchmarks.group,
    ReplayBenchmarks.group,
    StoreBenchmarks.group,
    StoreBenchmarks.recorderGroup,
    ServerBenchmarks.group,
    ProcessServerBenchmarks.group,
    PostgresBenchmarks.group,
    PruneBenchmarks.group,
    ForwardBenchmarks.group,
    CrashBenchmarks.group,
    ForwardBenchmarks.recorderGroup,
]

// A client of the server-process benchmarks, run as a process of its own.
if CommandLine.arguments.count > 2, CommandLine.arguments[1] == "--role" {
    ProcessRoles.run(Array(CommandLine.arguments.dropFirst(2)))
}

var arguments = CommandLine.arguments.dropFirst()
var json = false
var filters: [String] = []
while let argument = arguments.popFirst() {
    switch argument {
    case "--json": json = true
    case "--filter":
        guard let value = arguments.popFirst() else {
            FileHandle.standardError.write(Data("rewind-bench: --filter needs a value\n".utf8))
            exit(2)
        }
        filters.append(value)
    case "--list":
        for group in groups { print(group.name) }
        exit(0)
    case "-h", "--help":
        print("usage: rewind-bench [--json] [--filter TEXT]... [--list]")
        print("Runs Rewind's benchmarks; --json prints one JSON object per figure.")
        exit(0)
    default:
        FileHandle.standardError.write(Data("rewind-bench: unknown argument '\(argument)'\n".utf8))
        exit(2)
    }
}

let selected = groups.filter { group in filters.isEmpty || filters.contains { group.name.contains($0) } }
if !json {
    FileHandle.standardOutput.write(Data(("name".padding(toLength: 44, withPad: " ", startingAt: 0) + "  " + "value".leftPad(12) + "  unit      " + "baseline".leftPad(12) + "  " + "ratio".leftPad(7) + "  note\n").utf8))
}
var failed = false
for group in selected {
    do {
        for result in try group.run() {
            // Written straight to the file descriptor so each figure shows as soon as it is measured.
            FileHandle.standardOutput.write(Data(((json ? result.jsonLine : result.tableRow) + "\n").utf8))
        }
    } catch {
        FileHandle.standardError.write(Data("rewind-bench: \(group.name) failed: \(error)\n".utf8))
        failed = true
    }
}
exit(failed ? 1 : 0)
