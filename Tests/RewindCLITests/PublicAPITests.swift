import Foundation
import Testing
import RewindTestSupport

/// What an app sees, type-checked as an app would be (`swiftc -typecheck` against this build's
/// modules, outside the package): the wire's entry points and messages are not there, and the
/// public API that replaces them compiles as the docs write it.
@Suite("The public API an app sees", .ownThreads)
struct PublicAPITests {
    /// A snippet that must not compile, and a word the compiler's complaint must name.
    struct Hidden: CustomTestStringConvertible, Sendable {
        var name: String
        var module: String
        var body: String
        var named: String
        var testDescription: String { name }
    }

    static let hidden = [
        Hidden(name: "Store.perform", module: "Rewind", body: """
            @MainActor func start(_ command: Command) async {
                let store = Store(initialState: ProfileState(), reducer: profileReducer)
                _ = await store.perform(command)
            }
            """, named: "perform"),
        Hidden(name: "Store.send(json:)", module: "Rewind", body: """
            @MainActor func start() throws {
                let store = Store(initialState: ProfileState(), reducer: profileReducer)
                try store.send(json: ["rename": ["_0": "Ada"]])
            }
            """, named: "send"),
        Hidden(name: "Store.jump(to: JSONValue)", module: "Rewind", body: """
            @MainActor func start(_ json: JSONValue) throws {
                let store = Store(initialState: ProfileState(), reducer: profileReducer)
                try store.jump(to: json)
            }
            """, named: "JSONValue"),
        Hidden(name: "AppMessage through Rewind", module: "Rewind", body: """
            let result: AppMessage.CommandResult? = nil
            """, named: "AppMessage"),
        Hidden(name: "AppMessage through RewindRecorder", module: "RewindRecorder", body: """
            let hello: AppMessage? = nil
            """, named: "AppMessage"),
        Hidden(name: "StoreLink.perform", module: "RewindRecorder", body: """
            @MainActor func start(_ link: StoreLink<ProfileState, ProfileAction>, _ command: Command) async {
                _ = await link.perform(command)
            }
            """, named: "perform"),
    ]

    @Test("a wire entry point or message is not in the public API", arguments: hidden)
    func hiddenFromApps(test: Hidden) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let source = CompileErrorTests.source(
            CompileErrorTests.Case(name: test.name, module: test.module, notCodable: ("", ""), body: test.body, message: ""),
            state: "Codable, Sendable", action: "Codable, Sendable")
        let checked = try CompileErrorTests.typecheck(source, in: directory.url)
        #expect(checked.status != 0, "compiled:\n\(source)")
        #expect(checked.output.contains(test.named), "\(checked.output)")
    }

    @Test("what replaces them compiles as the docs write it: commands said at the call site, a CommandResult, StoreReplayError, ReSwift's middleware order")
    func replacementsCompile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let body = """
            @MainActor func start(_ sink: ServerSink, _ recording: Recording) async {
                let logging = Middleware<ProfileState, ProfileAction> { dispatch, getState in
                    { next in { action in _ = getState(); next(action) } }
                }
                let store = Store(initialState: ProfileState(), reducer: profileReducer, middleware: [logging])
                store.record(to: .sinks([sink]), app: "Profile", commands: .accepted)
                let quiet = Store(initialState: ProfileState(), reducer: profileReducer)
                quiet.record(to: .sinks([sink]), app: "Profile", commands: .ignored)
                sink.onCommand { command in command.kind == .resume ? .done() : .failed("only resume here") }
                do {
                    try await store.replay(recording)
                } catch let refusal as StoreReplayError {
                    print(refusal.description)
                } catch {
                    print(error)
                }
            }
            """
        let source = CompileErrorTests.source(
            CompileErrorTests.Case(name: "replacements", module: "Rewind", notCodable: ("", ""), body: body, message: ""),
            state: "Codable, Sendable", action: "Codable, Sendable")
        let checked = try CompileErrorTests.typecheck(source, in: directory.url)
        #expect(checked.status == 0, "\(checked.output)")
    }
}
