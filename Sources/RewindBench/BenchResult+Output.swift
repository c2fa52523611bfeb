import Foundation

extension BenchResult {
    /// One JSON object: `{"name":…,"value":…,"unit":…,"baseline":…,"ratio":…}`.
    var jsonLine: String {
        var fields = ["\"name\":\(quoted(name))", "\"value\":\(number(value))", "\"unit\":\(quoted(unit))"]
        if let baseline { fields.append("\"baseline\":\(number(baseline))") }
        if let ratio { fields.append("\"ratio\":\(number(ratio))") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    var tableRow: String {
        let baselineText = baseline.map { format($0) } ?? ""
        let ratioText = ratio.map { String(format: "%.2f", $0) } ?? ""
        return name.padding(toLength: 44, withPad: " ", startingAt: 0) + "  " + format(value).leftPad(12) + "  "
            + unit.padding(toLength: 8, withPad: " ", startingAt: 0) + "  " + baselineText.leftPad(12) + "  "
            + ratioText.leftPad(7) + "  " + note
    }

    private func format(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        if abs(v) >= 100 { return String(format: "%.1f", v) }
        if abs(v) >= 1 { return String(format: "%.2f", v) }
        return String(format: "%.4g", v)
    }

    private func number(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(format: "%.6g", v)
    }

    private func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

extension String {
    func leftPad(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
