/// One measured figure: printed as a table row, or with `--json` as one JSON object per line
/// `{"name", "value", "unit", "baseline"?, "ratio"?}`.
struct BenchResult {
    var name: String
    var value: Double
    var unit: String
    /// The same measure for the baseline we compare with, taken in the same run.
    var baseline: Double?
    /// `value / baseline` (or what the benchmark defines as its ratio), when there is a baseline.
    var ratio: Double?
    /// What the baseline is, shown in the table.
    var note: String = ""
}

/// A named group of benchmarks; `run` returns its figures.
struct BenchGroup {
    var name: String
    var run: () throws -> [BenchResult]
}
