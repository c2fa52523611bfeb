import RewindJSON

// What recording and time travel need from a store's types, said by the compiler. These methods
// live in extensions constrained to `State: Codable`, `Action: Decodable` and so on; without an
// overload for other types, a call on a store whose state is not Codable fell through to the
// store's @dynamicMemberLookup and read "has no dynamic member 'record' using key path from root
// type …", hiding the cause. Each overload below is the one left for such a store, unavailable
// with a message that names the missing conformance. For a store whose types conform, the
// constrained method is the more specialised one and is chosen.

extension Store {
    @available(*, unavailable, message: "recording needs State: Encodable & Sendable and Action: Sendable; make them Codable & Sendable (Codable also gives time travel from the log and the inspector's commands)")
    public func record(to destination: RecordingDestination = .automatic, app: String, version: String? = nil,
                       meta: JSONValue = [:], redacting: [String] = [], redactingKeys: [String] = [],
                       queueCapacity: Int = 10_000, commands: InspectorCommands<State, Action> = .ignored) -> Never {
        fatalError("unavailable")
    }

    @available(*, unavailable, message: "recording needs State: Encodable & Sendable and Action: Sendable; make them Codable & Sendable")
    public func stopRecording() -> Never {
        fatalError("unavailable")
    }

    @available(*, unavailable, message: "recording needs State: Encodable & Sendable and Action: Sendable; make them Codable & Sendable")
    public func finishRecording(timeout: Duration = .seconds(2)) async -> Never {
        fatalError("unavailable")
    }

    @available(*, unavailable, message: "replays need State: Codable & Sendable and Action: Decodable & Sendable (a recording is decoded into them); make them Codable & Sendable")
    public func replay(_ recording: Recording, from: Int64 = 0, to: Int64? = nil, pace: ReplayPace = .immediate) async throws -> Never {
        fatalError("unavailable")
    }

    @available(*, unavailable, message: "branches need State: Codable & Sendable and Action: Decodable & Sendable (a recording is decoded into them); make them Codable & Sendable")
    public func branch(_ recording: Recording, skip: Set<Int64> = [], edits: [Int64: Action] = [:]) async throws -> Never {
        fatalError("unavailable")
    }
}
