import CFuzzSupport
import Foundation

/// `rewind-fuzz replay DIR` runs every input kept under `DIR/TARGET/` through its target, so the
/// corpus (the repros, and every input that ever crashed) keeps passing; a broken promise stops
/// the process with the input's path. `rewind-fuzz fuzz TARGET [libFuzzer options]` fuzzes one
/// target, in a build linked with libFuzzer (`make fuzz`).
@main
struct RewindFuzz {
    nonisolated(unsafe) static var target = FuzzTarget.json

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch (arguments.first, arguments.count) {
        case ("replay", 2):
            replay(URL(fileURLWithPath: arguments[1]))
        case ("fuzz", 2...):
            guard let target = FuzzTarget(rawValue: arguments[1]) else { usage() }
            Self.target = target
            // libFuzzer reads its own options: pass it the program name and what follows TARGET.
            var argv: [UnsafeMutablePointer<CChar>?] = ([CommandLine.arguments[0]] + arguments.dropFirst(2)).map { strdup($0) } + [nil]
            var argc = Int32(argv.count - 1)
            let status = argv.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var base = buffer.baseAddress
                return rewind_run_libfuzzer(&argc, &base) { data, size in
                    RewindFuzz.target.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
                    return 0
                }
            }
            if status == -1 {
                FileHandle.standardError.write(Data("rewind-fuzz: this build has no libFuzzer; build it with `make fuzz`\n".utf8))
                exit(2)
            }
            exit(status)
        default:
            usage()
        }
    }

    static func usage() -> Never {
        let targets = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("usage: rewind-fuzz replay DIR | rewind-fuzz fuzz TARGET [libFuzzer options]  (targets: \(targets))\n".utf8))
        exit(2)
    }

    static func replay(_ root: URL) {
        var total = 0
        for target in FuzzTarget.allCases {
            let folder = root.appendingPathComponent(target.rawValue)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
                FileHandle.standardError.write(Data("rewind-fuzz: no corpus folder \(folder.path)\n".utf8))
                exit(1)
            }
            let inputs = names.filter { !$0.hasPrefix(".") }.sorted()
            for name in inputs {
                let path = folder.appendingPathComponent(name).path
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                FuzzTarget.currentInput = path
                target.run(Array(data))
                total += 1
            }
            print("rewind-fuzz: \(target.rawValue): \(inputs.count) inputs")
        }
        FuzzTarget.closeServer()
        print("rewind-fuzz: replayed \(total) inputs, no failures")
    }
}

/// libFuzzer's entry point. In the `make fuzz` build libFuzzer's own `main` runs the process, and
/// `REWIND_FUZZ_TARGET` names the target (json, patch, number or server).
@_cdecl("LLVMFuzzerTestOneInput")
public func rewindFuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    if !FuzzTarget.chosen {
        let name = ProcessInfo.processInfo.environment["REWIND_FUZZ_TARGET"] ?? "json"
        guard let target = FuzzTarget(rawValue: name) else { FuzzTarget.fail("REWIND_FUZZ_TARGET \(name) is not a target") }
        RewindFuzz.target = target
        FuzzTarget.chosen = true
    }
    RewindFuzz.target.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
