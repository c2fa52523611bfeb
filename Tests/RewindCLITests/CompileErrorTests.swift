import Foundation
import Testing
import RewindTestSupport

/// A store or recorder whose state or action is not Codable fails to compile with a message that
/// names the missing conformance (not "no dynamic member 'record'", which the store's
/// @dynamicMemberLookup gave before). Each case is a small file type-checked with `swiftc
/// -typecheck` against the modules this build made; the same file with Codable types is checked
/// to compile, so a failure is the conformance's and nothing else's.
@Suite("Clear compile errors for types that are not Codable", .ownThreads)
struct CompileErrorTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var module: String
        /// The conformances of the state and the action; `CONFORMANCES` in `body` is replaced.
        var notCodable: (state: String, action: String)
        var body: String
        /// What the error must say.
        var message: String
        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "store.record with a state that is not Encodable", module: "Rewind", notCodable: ("Sendable", "Codable, Sendable"), body: """
            @MainActor func start() {
                let store = Store(initialState: ProfileState(), reducer: profileReducer)
                store.record(app: "Profile")
            }
            """, message: "error: 'record(to:app:version:meta:redacting:redactingKeys:queueCapacity:commands:)' is unavailable: recording needs State: Encodable & Sendable and Action: Sendable"),
        Case(name: "store.replay with a state that is Encodable only", module: "Rewind", notCodable: ("Encodable, Sendable", "Codable, Sendable"), body: """
            @MainActor func start(_ recording: Recording) async throws {
                let store = Store(initialState: ProfileState(), reducer: profileReducer)
                try await store.replay(recording)
            }
            """, message: "error: 'replay(_:from:to:pace:)' is unavailable: replays need State: Codable & Sendable and Action: Decodable & Sendable"),
        Case(name: "a recording that takes commands, with an action that is not Decodable", module: "Rewind", notCodable: ("Codable, Sendable", "Encodable, Sendable"), body: """
            @MainActor func start() {
                let store = Store(initialState: ProfileState(), reducer: profileReducer)
                store.record(app: "Profile", commands: .accepted)
            }
            """, message: "error: 'accepted' is unavailable: the inspector's commands need State: Codable & Sendable and Action: Decodable & Sendable"),
        Case(name: "a Recorder of a state that is not Encodable", module: "RewindRecorder", notCodable: ("Sendable", "Codable, Sendable"), body: """
            func start() {
                let recorder = Recorder<ProfileState, ProfileAction>(initialState: ProfileState(), metadata: RecordingMetadata(app: "Profile"))
                recorder.record(.rename("Ada"), state: ProfileState())
            }
            """, message: "error: type 'ProfileState' does not conform to protocol 'Encodable'"),
        Case(name: "a StoreLink of an action that is not Decodable", module: "RewindRecorder", notCodable: ("Codable, Sendable", "Encodable, Sendable"), body: """
            func start(_ recorder: Recorder<ProfileState, ProfileAction>) {
                _ = StoreLink(recorder: recorder) { state, action in }
            }
            """, message: "requires that 'ProfileAction' conform to 'Decodable'"),
    ]

    /// Type-checks `source` against the build's modules; returns the status and what swiftc said.
    static func typecheck(_ source: String, in directory: URL, flags: [String] = []) throws -> (status: Int32, output: String) {
        let file = directory.appendingPathComponent("Profile.swift")
        try Data(source.utf8).write(to: file)
        let modules = CLIRunner.locate("Modules").path
        return try RecordedBugEndToEndTests.run("swiftc", [
            "-typecheck", "-swift-version", "6", "-I", modules,
            "-Xcc", "-fmodule-map-file=" + repository.appendingPathComponent("Sources/CSQLite/module.modulemap").path,
            "-Xcc", "-fmodule-map-file=" + repository.appendingPathComponent("Sources/CLibWebSockets/module.modulemap").path,
            "-Xcc", "-fmodule-map-file=" + crashModuleMap,
        ] + flags + [file.path], in: directory)
    }

    /// The crash handler's module map, which SwiftPM writes into the build folder beside Modules
    /// (a C target with an include folder and no module map of its own).
    static var crashModuleMap: String {
        CLIRunner.locate("Modules").deletingLastPathComponent().appendingPathComponent("CRewindCrash.build/module.modulemap").path
    }

    static func source(_ test: Case, state: String, action: String) -> String {
        var lines = ["import \(test.module)", "",
                     "struct ProfileState: \(state) { var name = \"\" }",
                     "enum ProfileAction: \(action) { case rename(String) }"]
        if test.module == "Rewind" {
            lines.append("let profileReducer: Reducer<ProfileState, ProfileAction> = { state, action in .none }")
        }
        return (lines + ["", test.body]).joined(separator: "\n") + "\n"
    }

    @Test("the message names the missing conformance; with Codable types the same code compiles", arguments: cases)
    func namesTheConformance(test: Case) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let codable = try Self.typecheck(Self.source(test, state: "Codable, Sendable", action: "Codable, Sendable"), in: directory.url)
        #expect(codable.status == 0, "with Codable types:\n\(codable.output)")
        let failing = try Self.typecheck(Self.source(test, state: test.notCodable.state, action: test.notCodable.action), in: directory.url)
        #expect(failing.status != 0)
        #expect(failing.output.contains(test.message), "\(failing.output)")
        #expect(!failing.output.contains("dynamic member"), "\(failing.output)")
    }

    @Test("default MainActor isolation: types without nonisolated fail with the compiler's isolated-conformance error (the one Integrating.md quotes); with it they compile, with no warning")
    func defaultMainActorIsolation() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let flags = ["-default-isolation", "MainActor"]
        func source(_ word: String) -> String {
            """
            import Foundation
            import Rewind

            \(word)struct CounterState: Codable, Sendable { var count = 0 }
            \(word)enum CounterAction: Codable, Sendable { case increment }

            @MainActor func start(_ server: URL) {
                let store = Store<CounterState, CounterAction>(initialState: CounterState()) { state, action in state.count += 1; return .none }
                store.record(to: .server(server), app: "Counter", commands: .accepted)
            }

            """
        }
        let plain = try Self.typecheck(source(""), in: directory.url, flags: flags)
        #expect(plain.status != 0)
        let docs = try String(contentsOf: Self.repository.appendingPathComponent("Docs/Integrating.md"), encoding: .utf8)
        let quoted = "main actor-isolated conformance of 'CounterState' to 'Encodable' cannot satisfy conformance requirement for a 'Sendable' type parameter"
        #expect(plain.output.contains(quoted), "\(plain.output)")
        #expect(docs.contains(quoted), "Integrating.md no longer quotes the compiler's words")
        let marked = try Self.typecheck(source("nonisolated "), in: directory.url, flags: flags)
        #expect(marked.status == 0, "\(marked.output)")
        #expect(!marked.output.contains("warning"), "\(marked.output)")
        let approachable = try Self.typecheck(source("nonisolated "), in: directory.url, flags: flags + [
            "-enable-upcoming-feature", "InferIsolatedConformances", "-enable-upcoming-feature", "NonisolatedNonsendingByDefault"])
        #expect(approachable.status == 0, "\(approachable.output)")
        #expect(!approachable.output.contains("warning"), "\(approachable.output)")
    }
    @Test("the TCA stand-in warns where TCA 1.25 does: the old wiring, which invoked reducers, gets the deprecation; the docs' wiring, composed in body, none")
    func tcaDeprecatesInvokingAReducer() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let header = """
            import ComposableArchitecture
            import RewindRecorder

            struct Feature: Reducer {
                struct State: Codable, Sendable { var count = 0 }
                enum Action: Codable, Sendable { case add, rewind }
                var body: some ReducerOf<Self> {
                    Reduce { state, action in
                        if case .add = action { state.count += 1 }
                        return .none
                    }
                }
            }

            """
        let invoked = header + """
            struct Recorded<Base: Reducer>: Reducer where Base.State: Codable & Sendable, Base.Action: Codable & Sendable {
                let base: Base
                let link: StoreLink<Base.State, Base.Action>
                func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
                    link.reduce(&state, action) { base.reduce(into: &$0, action: action) } ?? .none
                }
            }
            func step(_ state: inout Feature.State, _ action: Feature.Action) { _ = Feature().reduce(into: &state, action: action) }

            """
        let old = try Self.typecheck(invoked, in: directory.url)
        #expect(old.status == 0, "\(old.output)")
        // One warning each where the old wiring invoked a reducer: `base.reduce` and `Feature().reduce`.
        let warned = old.output.split(separator: "\n").filter { $0.contains("Profile.swift:") && $0.contains("warning: 'reduce(into:action:)' is deprecated: Don't invoke a reducer directly") }
        #expect(warned.map { $0.split(separator: ":")[1] } == ["18", "21"], "\(old.output)")
        let docs = try String(contentsOf: Self.repository.appendingPathComponent("Tests/StandIns/TCAShop/Recorded.swift"), encoding: .utf8)
        let begin = try #require(docs.range(of: "import RewindRecorder\n"))
        let end = try #require(docs.range(of: "@MainActor\nfunc makeStore"))
        let composed = try Self.typecheck(header + docs[begin.upperBound..<end.lowerBound], in: directory.url)
        #expect(composed.status == 0, "\(composed.output)")
        #expect(!composed.output.contains("warning"), "\(composed.output)")
    }
}
