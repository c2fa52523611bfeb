import Foundation
import RewindJSON

/// Parse and print throughput on the three classic corpus files, each beside orjson (measured in
/// one `python3` child) and Foundation's `JSONSerialization`, all on the same bytes in the same run.
///
/// Throughput is the file's size in MB (10⁶ bytes) over the median time of one parse, or of one
/// compact print of the parsed document, so every figure in a row divides the same bytes.
enum JSONBenchmarks {
    static let files = ["canada", "citm_catalog", "twitter"]

    static var group: BenchGroup { BenchGroup(name: "json") {
        guard let corpus = SharedTestData.directory(containing: "json-corpus") else {
            FileHandle.standardError.write(Data("rewind-bench: json: shared/testdata not found (set REWIND_SHARED_TESTDATA); skipping\n".utf8))
            return []
        }
        var inputs: [(name: String, path: String, bytes: [UInt8])] = []
        for name in files {
            let path = corpus.appendingPathComponent("json-corpus/\(name).json").path
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("rewind-bench: json: cannot read \(path); skipping it\n".utf8))
                continue
            }
            inputs.append((name, path, Array(data)))
        }
        let orjson = OrjsonBaseline.measure(paths: inputs.map(\.path))

        var results: [BenchResult] = []
        for input in inputs {
            let megabytes = Double(input.bytes.count) / 1e6
            let data = Data(input.bytes)

            let parseSeconds = try Measure.median { blackHole(try JSONValue(parsing: input.bytes)) }
            let value = try JSONValue(parsing: input.bytes)
            let printSeconds = Measure.median { blackHole(value.serializedBytes()) }

            let foundationParseSeconds = try Measure.median {
                blackHole(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
            }
            let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            let foundationPrintSeconds = try Measure.median {
                blackHole(try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed]))
            }

            let baseline = orjson[input.path]
            results.append(row("json.parse.\(input.name)", megabytes / parseSeconds, baseline?.parse.map { megabytes / $0 }))
            results.append(row("json.print.\(input.name)", megabytes / printSeconds, baseline?.print.map { megabytes / $0 }))
            results.append(BenchResult(
                name: "json.parse.\(input.name).foundation", value: megabytes / foundationParseSeconds, unit: "MB/s",
                baseline: megabytes / parseSeconds, ratio: parseSeconds / foundationParseSeconds,
                note: "JSONSerialization; baseline = ours"))
            results.append(BenchResult(
                name: "json.print.\(input.name).foundation", value: megabytes / foundationPrintSeconds, unit: "MB/s",
                baseline: megabytes / printSeconds, ratio: printSeconds / foundationPrintSeconds,
                note: "JSONSerialization; baseline = ours"))
        }
        return results
    } }

    private static func row(_ name: String, _ ours: Double, _ orjson: Double?) -> BenchResult {
        BenchResult(name: name, value: ours, unit: "MB/s", baseline: orjson, ratio: orjson.map { ours / $0 },
                    note: orjson == nil ? "orjson unavailable" : "baseline = orjson")
    }
}

/// Times `orjson.loads` and `orjson.dumps` inside one `python3` child, so interpreter start-up is
/// not counted. Returns median seconds per file path; empty (with a note on stderr) when python3
/// or orjson is missing.
enum OrjsonBaseline {
    struct Figures {
        var parse: Double?
        var print: Double?
    }

    /// Prints one line per file: `path<TAB>median loads seconds<TAB>median dumps seconds`.
    private static let script = """
    import sys, time
    try:
        import orjson
    except ImportError:
        print("NO-ORJSON"); sys.exit(0)

    def median(fn, min_runs=5, min_seconds=0.5):
        fn()
        samples = []
        start = time.perf_counter()
        while len(samples) < min_runs or time.perf_counter() - start < min_seconds:
            t0 = time.perf_counter(); fn(); samples.append(time.perf_counter() - t0)
            if len(samples) >= 10000: break
        samples.sort()
        return samples[len(samples) // 2]

    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            data = f.read()
        obj = orjson.loads(data)
        print(path, median(lambda: orjson.loads(data)), median(lambda: orjson.dumps(obj)), sep="\\t", flush=True)
    """

    static func measure(paths: [String]) -> [String: Figures] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + paths
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            note("python3 could not be started (\(error)); orjson baseline omitted")
            return [:]
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        if process.terminationStatus != 0 {
            note("python3 is missing or failed (exit \(process.terminationStatus)); orjson baseline omitted")
            return [:]
        }
        if text.hasPrefix("NO-ORJSON") {
            note("the python package orjson is not installed (pip install orjson); orjson baseline omitted")
            return [:]
        }
        var figures: [String: Figures] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            guard fields.count == 3 else { continue }
            figures[String(fields[0])] = Figures(parse: Double(fields[1]), print: Double(fields[2]))
        }
        return figures
    }

    private static func note(_ message: String) {
        FileHandle.standardError.write(Data("rewind-bench: json: \(message)\n".utf8))
    }
}
