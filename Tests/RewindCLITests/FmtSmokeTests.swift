import Testing

@Suite("rewind fmt (smoke)")
struct FmtSmokeTests {
    @Test("pretty-prints valid JSON")
    func prettyPrints() throws {
        let result = try CLIRunner.run(["fmt", "-"], stdin: Data(#"{"a":[1,2]}"#.utf8))
        #expect(result.status == 0)
        #expect(result.stdout == "{\n  \"a\": [\n    1,\n    2\n  ]\n}\n")
    }
}
import Foundation
