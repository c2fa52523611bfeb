// Integrating.md recipe begin
import Foundation
import Rewind
import Testing

// Beside this file: checkout-bug.jsonl, from
//   rewind export SESSION --format jsonl --output Tests/AppTests/checkout-bug.jsonl
@Test("checkout totals stay fixed") func checkoutTotalsStayFixed() throws {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("checkout-bug.jsonl").path
    let recording = try Recording.load(fromJSONL: fixture)
    let mismatch = try ReplayVerifier(reducer: appReducer).firstMismatch(in: recording)
    #expect(mismatch == nil, "\(mismatch.map(String.init(describing:)) ?? "")")
}
// Integrating.md recipe end

import RewindTestSupport
@testable import RewindAppTestSupport

/// The regression recipe in Docs/Integrating.md is the code above, compiled and run here
/// against a fixture `rewind export --format jsonl` wrote; and it catches a changed reducer.
@Suite("The regression-test recipe", .ownThreads)
struct RegressionRecipeTests {
    static let here = URL(fileURLWithPath: #filePath)

    @Test("Docs/Integrating.md shows exactly the recipe compiled above")
    func docsMatchThisFile() throws {
        let root = Self.here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("Docs/Integrating.md"), encoding: .utf8)
        let source = try String(contentsOf: Self.here, encoding: .utf8)
        let begin = try #require(source.range(of: "// Integrating.md recipe begin\n"))
        let end = try #require(source.range(of: "// Integrating.md recipe end\n"))
        #expect(docs.contains("```swift\n" + source[begin.upperBound..<end.lowerBound] + "```"))
    }

    @Test("a reducer that changed since the recording fails the recipe at the seq, with recorded and replayed values")
    func changedReducerIsCaught() throws {
        let fixture = Self.here.deletingLastPathComponent().appendingPathComponent("checkout-bug.jsonl").path
        let recording = try Recording.load(fromJSONL: fixture)
        #expect(recording.steps.count == 8)
        let mismatch = try #require(try ReplayVerifier(reducer: changedReducer).firstMismatch(in: recording))
        #expect(mismatch.seq == 8)
        #expect(mismatch.description == """
            state differs at seq 8 after {"add":{"_0":2}}:
              /count  recorded: 15  replayed: 16
            """)
    }

    @Test("a missing fixture is one sentence saying how to make it")
    func missingFixture() {
        let path = Self.here.deletingLastPathComponent().appendingPathComponent("no-such.jsonl").path
        #expect { try Recording.load(fromJSONL: path) } throws: { error in
            "\(error)" == "no recording at \(path): export one with `rewind export SESSION --format jsonl --output \(path)`"
        }
    }

    /// The app's actions after a rename: `add` is now `addAmount`.
    enum RenamedAction: Codable, Sendable {
        case increment
        case addAmount(Int)
        case append(String)
        case setToken(String)
        case setRatio(Double)
        case load
        case loaded(Int)
    }

    @Test("an action whose case was renamed since the recording names the seq and the case")
    func renamedCaseIsNamed() throws {
        let fixture = Self.here.deletingLastPathComponent().appendingPathComponent("checkout-bug.jsonl").path
        let recording = try Recording.load(fromJSONL: fixture)
        // The app's reducer, behind the renamed actions: seq 1 (append) replays fine.
        let verifier = ReplayVerifier<AppState, RenamedAction>(step: { state, action in
            switch action {
            case .increment: _ = appReducer(&state, .increment)
            case .addAmount(let amount): _ = appReducer(&state, .add(amount))
            case .append(let item): _ = appReducer(&state, .append(item))
            case .setToken(let token): _ = appReducer(&state, .setToken(token))
            case .setRatio(let ratio): _ = appReducer(&state, .setRatio(ratio))
            case .load, .loaded: break
            }
        })
        #expect { try verifier.firstMismatch(in: recording) } throws: { error in
            "\(error)" == "the action at seq 2 does not decode at the root: RenamedAction has no case \"add\" (renamed or removed since the recording?)"
        }
    }
}
