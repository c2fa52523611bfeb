import RewindJSON
import RewindWire
import Testing
import RewindTestSupport

/// The typed arguments of commands: what the inspector page, `rewind replay --into`,
/// `rewind branch` and the server put on the wire reads back as the right values, a typed value
/// survives its encode and decode, what the server relays is byte for byte what it relayed when
/// it wrote the members by hand, and a malformed member gets one sentence naming it.
@Suite("Command arguments", .ownThreads)
struct CommandArgumentsTests {
    /// The command an inspector sends, as the server reads it.
    private func inspectorCommand(_ text: String) throws -> Command {
        guard case .command(let command) = try InspectorRequest(frame: Array(text.utf8)) else {
            throw WireError(.badMessage, "not a command: \(text)")
        }
        return command
    }

    /// The command as the server relays it to the app: under its own id, without the session.
    private func relayed(_ command: Command, id: JSONValue = "c1") -> String {
        var relayed = command
        relayed.id = id
        relayed.session = nil
        return ServerToApp.command(relayed).json.serialized(.compact)
    }

    @Test("a replay's sites are sites or nulls, at most one an action; anything else is refused in one sentence")
    func replaySites() throws {
        for bad: JSONValue in [[1], [["file": "A.swift", "line": -1, "function": "f"]], [nil, nil], "x"] {
            let refused = #expect(throws: WireError.self) { try ReplayArguments(members: ["actions": [["type": "a"]], "sites": bad]) }
            #expect(refused?.message.contains("sites") == true, "\(bad): \(String(describing: refused))")
        }
        let read = try ReplayArguments(members: ["actions": [["type": "a"], ["type": "b"]], "sites": [nil]])
        #expect(read.sites == [nil])
    }

    // MARK: Round trips

    @Test("each kind's arguments come back equal from their members and from a command's JSON text")
    func roundTrips() throws {
        let jump = JumpArguments(seq: 12, state: ["n": 12, "list": [1, 2]])
        let dispatch = DispatchArguments(action: ["type": "reset", "to": 0])
        let replay = ReplayArguments(actions: [["type": "a"], ["type": "@@rewind/replayed", "state": ["n": 3]]],
                                     state: ["n": 0], of: "6F0C", from: 4, to: 5, pace: 2.5,
                                     sites: [WireEvent.Site(file: "App/CartView.swift", line: 7, function: "body"), nil])
        let branch = BranchArguments(
            skip: [3, 9], edit: [.init(seq: 6, action: ["type": "add", "n": 50]), .init(seq: 2, action: "tap")],
            state: ["n": 0], at: 1_763_700_000.25,
            steps: [.init(action: ["type": "a"], at: 1_763_700_000.5, cause: nil,
                          site: WireEvent.Site(file: "App/CartView.swift", line: 42, function: "body")),
                    .init(action: ["type": "b"], at: 1_763_700_001, cause: 1),
                    .init(action: ["type": "@@rewind/replayed"], at: 1_763_700_002, state: ["n": 7])],
            of: "6F0C")

        #expect(try JumpArguments(members: jump.members) == jump)
        #expect(try DispatchArguments(members: dispatch.members) == dispatch)
        #expect(try ReplayArguments(members: replay.members) == replay)
        #expect(try BranchArguments(members: branch.members) == branch)
        // The fewest members each kind takes.
        #expect(try JumpArguments(members: JumpArguments(seq: 0).members) == JumpArguments(seq: 0))
        #expect(try ReplayArguments(members: ReplayArguments(actions: []).members) == ReplayArguments(actions: []))
        #expect(try BranchArguments(members: BranchArguments(skip: [1]).members) == BranchArguments(skip: [1]))

        // Through text, as an inspector's request and as the server's relay.
        let commands = [Command(id: 1, session: "3", jump), Command(id: 2, session: "3", dispatch),
                        Command(id: 3, session: "3", replay), Command(id: 4, session: "3", branch)]
        for command in commands {
            guard case .command(let read) = try InspectorRequest(frame: InspectorRequest.command(command).json.serializedBytes()) else {
                Issue.record("\(command.kind) did not read back as a command")
                continue
            }
            #expect(read == command)
            guard case .command(let toApp) = try ServerToApp(frame: Array(relayed(command).utf8)) else {
                Issue.record("\(command.kind) did not read back as the server's command")
                continue
            }
            #expect(toApp.kind == command.kind && toApp.arguments == command.arguments)
        }
        #expect(try commands[0].decode(JumpArguments.self) == jump)
        #expect(try commands[1].decode(DispatchArguments.self) == dispatch)
        #expect(try commands[2].decode(ReplayArguments.self) == replay)
        #expect(try commands[3].decode(BranchArguments.self) == branch)
    }

    // MARK: Today's wire JSON

    @Test("the inspector page's jump gives its seq; the server's relay gives the state it filled in")
    func jumpFromThePage() throws {
        let jump = try inspectorCommand(#"{"type":"command","session":"3","kind":"jump","seq":120,"id":7}"#)
        #expect(jump.kind == .jump && jump.session == "3" && jump.id == 7)
        #expect(try jump.decode(JumpArguments.self) == JumpArguments(seq: 120))

        guard case .command(let relayed) = try ServerToApp(frame: Array(#"{"type":"command","id":"c17","kind":"jump","seq":120,"state":{"todos":["a"]}}"#.utf8)) else {
            Issue.record("not a command")
            return
        }
        #expect(try relayed.decode(JumpArguments.self) == JumpArguments(seq: 120, state: ["todos": ["a"]]))
    }

    @Test("the page's dispatch and replay give their action, actions, state, session, seqs and pace")
    func dispatchAndReplayFromThePage() throws {
        let dispatch = try inspectorCommand(#"{"type":"command","session":"3","kind":"dispatch","action":{"type":"reset"},"id":8}"#)
        #expect(try dispatch.decode(DispatchArguments.self).action == ["type": "reset"])

        let replay = try inspectorCommand(#"{"type":"command","session":"s","kind":"replay","of":"6F0C","from":1,"to":3,"pace":2,"state":{"n":0},"actions":[{"type":"a"},{"type":"b"},{"type":"c"}],"id":9}"#)
        let arguments = try replay.decode(ReplayArguments.self)
        #expect(arguments == ReplayArguments(actions: [["type": "a"], ["type": "b"], ["type": "c"]], state: ["n": 0],
                                             of: "6F0C", from: 1, to: 3, pace: 2))
        // The page leaves `pace` out for "at once" (and `state` may be left out: the live one).
        let atOnce = try inspectorCommand(#"{"type":"command","session":"s","kind":"replay","actions":[],"id":10}"#)
        #expect(try atOnce.decode(ReplayArguments.self) == ReplayArguments(actions: []))
    }

    @Test("rewind branch's skip and edit, and the recording the server adds, read back in order")
    func branchFromTheTerminalAndTheServer() throws {
        let asked = try inspectorCommand(#"{"type":"command","id":1,"kind":"branch","session":"latest","skip":[3,5],"edit":{"6":{"type":"add","n":50},"2":"tap"}}"#)
        let branch = try asked.decode(BranchArguments.self)
        #expect(branch.skip == [3, 5])
        #expect(branch.edit == [.init(seq: 6, action: ["type": "add", "n": 50]), .init(seq: 2, action: "tap")])
        #expect(branch.state == nil && branch.steps == nil && branch.at == nil && branch.of == nil)

        guard case .command(let filled) = try ServerToApp(frame: Array(#"{"type":"command","id":"c2","kind":"branch","skip":[3],"state":{"n":0},"at":1763700000.5,"steps":[{"action":{"type":"a"},"at":1763700000.75,"site":{"file":"A.swift","line":3,"function":"f()"}},{"action":{"type":"@@rewind/replayed"},"at":1763700001,"cause":1,"state":{"n":9}}],"of":"6F0C"}"#.utf8)) else {
            Issue.record("not a command")
            return
        }
        let recording = try filled.decode(BranchArguments.self)
        #expect(recording.at == 1_763_700_000.5 && recording.of == "6F0C")
        let (state, steps) = try recording.recording()
        #expect(state == ["n": 0])
        #expect(steps == [
            .init(action: ["type": "a"], at: 1_763_700_000.75, site: WireEvent.Site(file: "A.swift", line: 3, function: "f()")),
            .init(action: ["type": "@@rewind/replayed"], at: 1_763_700_001, cause: 1, state: ["n": 9]),
        ])
    }

    // MARK: Bytes on the wire

    @Test("rewind replay --into and rewind branch send the bytes they sent when they built the members by hand")
    func terminalCommandsKeepTheirBytes() {
        let replay = Command(id: 1, session: "s", ReplayArguments(actions: [["type": "a"]], state: ["n": 0], of: "6F0C", from: 1, to: 1, pace: 20))
        #expect(InspectorRequest.command(replay).json.serialized(.compact)
                == #"{"type":"command","id":1,"kind":"replay","session":"s","actions":[{"type":"a"}],"state":{"n":0},"of":"6F0C","from":1,"to":1,"pace":20}"#)
        let branch = Command(id: 1, session: "s", BranchArguments(skip: [3], edit: [.init(seq: 12, action: ["type": "reset"])]))
        #expect(InspectorRequest.command(branch).json.serialized(.compact)
                == #"{"type":"command","id":1,"kind":"branch","session":"s","skip":[3],"edit":{"12":{"type":"reset"}}}"#)
    }

    @Test("what the server fills in goes after the inspector's members, which keep their order and bytes")
    func serverFillKeepsTheInspectorsBytes() throws {
        var jump = try inspectorCommand(#"{"type":"command","id":7,"session":"3","kind":"jump","seq":120}"#)
        var arguments = try jump.decode(JumpArguments.self)
        arguments.state = ["n": 1]
        jump.update(arguments)
        #expect(relayed(jump) == #"{"type":"command","id":"c1","kind":"jump","seq":120,"state":{"n":1}}"#)

        var branch = try inspectorCommand(#"{"type":"command","id":5,"session":"s","kind":"branch","edit":{"2":{"type":"x"}},"skip":[1]}"#)
        var recording = try branch.decode(BranchArguments.self)
        recording.state = ["n": 0]
        recording.at = 1_763_700_000.5
        recording.steps = [.init(action: ["type": "a"], at: 1_763_700_000.75, cause: 0), .init(action: ["type": "x"], at: 1_763_700_001)]
        recording.of = "6F0C"
        branch.update(recording)
        #expect(relayed(branch) == #"{"type":"command","id":"c1","kind":"branch","edit":{"2":{"type":"x"}},"skip":[1],"state":{"n":0},"at":1763700000.5,"steps":[{"action":{"type":"a"},"at":1763700000.75,"cause":0},{"action":{"type":"x"},"at":1763700001}],"of":"6F0C"}"#)

        // A member the typed value does not know is relayed as given.
        var extra = try inspectorCommand(#"{"type":"command","id":6,"session":"s","kind":"jump","seq":2,"note":"x"}"#)
        var filled = try extra.decode(JumpArguments.self)
        filled.state = 2
        extra.update(filled)
        #expect(relayed(extra) == #"{"type":"command","id":"c1","kind":"jump","seq":2,"note":"x","state":2}"#)
    }

    // MARK: Malformed members

    @Test("a malformed member is one sentence naming the kind and the member", arguments: [
        (Command.Kind.jump, #"{"seq":"x"}"#, #"jump: "seq" must be an integer"#),
        (.dispatch, #"{}"#, #"dispatch: "action" is missing"#),
        (.replay, #"{"actions":{"0":1}}"#, #"replay: "actions" must be an array of actions"#),
        (.replay, #"{"state":{}}"#, #"replay: "actions" must be an array of actions"#),
        (.replay, #"{"actions":[],"pace":"fast"}"#, #"replay: "pace" must be a number of actions per second"#),
        (.replay, #"{"actions":[],"of":5}"#, #"replay: "of" must be a string"#),
        (.replay, #"{"actions":[],"from":1.5}"#, #"replay: "from" must be an integer"#),
        (.branch, #"{"skip":"3"}"#, #"branch: "skip" must be an array of seqs"#),
        (.branch, #"{"skip":[1.5]}"#, #"branch: "skip" must be an array of seqs"#),
        (.branch, #"{"edit":[1]}"#, #"branch: "edit" must be an object of seq → action"#),
        (.branch, #"{"edit":{"01":{}}}"#, #"branch: "edit" keys must be seqs written in plain decimal ("1", not "01" or "+1"); got "01""#),
        (.branch, #"{"skip":[]}"#, #"branch: nothing to change: give "skip" or "edit""#),
        (.branch, #"{"skip":[1],"steps":"all"}"#, #"branch: "steps" must be an array of {"action", "at", "cause", "site"}"#),
        (.branch, #"{"skip":[1],"steps":[{"action":1},{"at":2}]}"#, #"branch: step 2 has no "action""#),
        (.branch, #"{"skip":[1],"steps":[{"action":1,"site":{"file":"A.swift"}}]}"#, #"branch: step 1: "site" must be {"file": string, "line": integer, "function": string}"#),
        (.branch, #"{"skip":[1],"at":"noon"}"#, #"branch: "at" must be a number of seconds since 1970"#),
    ])
    func malformed(kind: Command.Kind, members: String, sentence: String) throws {
        guard case .object(let object) = try JSONValue(parsing: members) else {
            Issue.record("not an object: \(members)")
            return
        }
        let command = Command(id: 4, kind: kind, arguments: object)
        do {
            switch kind {
            case .jump: _ = try command.decode(JumpArguments.self)
            case .dispatch: _ = try command.decode(DispatchArguments.self)
            case .replay: _ = try command.decode(ReplayArguments.self)
            case .branch: _ = try command.decode(BranchArguments.self)
            case .resume, .pause: return
            }
            Issue.record("\(members) read as \(kind) arguments")
        } catch {
            #expect(error == WireError(.badMessage, sentence, id: 4))
            #expect(!error.message.contains("\n"))
        }
    }

    @Test("a branch without the recording the server adds says what is missing")
    func branchWithoutItsRecording() throws {
        #expect(throws: WireError(.badMessage, #"branch: "state" is missing"#)) { try BranchArguments(skip: [1]).recording() }
        #expect(throws: WireError(.badMessage, #"branch: "steps" must be an array of {"action", "at", "cause", "site"}"#)) {
            try BranchArguments(skip: [1], state: ["n": 0]).recording()
        }
    }
}
