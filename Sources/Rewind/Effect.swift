import RewindLog

/// Work a reducer asks the store to do after it has changed the state: nothing, async work that
/// may send further actions, an action sent at once, several of these, or a cancellation.
///
/// An action sent by an effect carries, as its recorded `cause`, the seq of the action whose
/// reducer returned the effect, and as its send site the line of the effect that sent it.
///
/// ```swift
/// case .cityChanged(let city):
///     state.city = city
///     return .run { send in
///         try? await Task.sleep(for: .milliseconds(300))
///         await send(.search(city))
///     }
///     .cancellable(id: SearchID.self, cancelInFlight: true)
/// case .screenClosed:
///     return .cancel(id: SearchID.self)
/// ```
public struct Effect<Action> {
    enum Operation {
        case none
        case run(Run)
        case send(Action, SendSite)
        case merge([Effect])
        case cancel(EffectID)
    }

    struct Run {
        let body: @Sendable (Send<Action>) async -> Void
        var id: EffectID?
        var cancelInFlight = false
    }

    let operation: Operation

    /// No further work.
    public static var none: Effect { Effect(operation: .none) }

    /// Sends `action` into the store right after the reducer returns, as an effect's action
    /// would be (its cause is the action whose reducer returned this).
    public static func send(_ action: Action, fileID: String = #fileID, line: Int = #line,
                            function: String = #function) -> Effect {
        Effect(operation: .send(action, SendSite(file: fileID, line: line, function: function)))
    }

    /// Runs every effect of `effects`, at the same time.
    public static func merge(_ effects: Effect...) -> Effect {
        merge(effects)
    }

    /// Runs every effect of `effects`, at the same time.
    public static func merge(_ effects: [Effect]) -> Effect {
        Effect(operation: .merge(effects))
    }

    /// Cancels every running effect marked with `id` (``cancellable(id:cancelInFlight:)``); the
    /// actions they send from then on are not applied.
    public static func cancel(id: some Hashable & Sendable) -> Effect {
        Effect(operation: .cancel(EffectID(id)))
    }

    /// Marks this effect's async work with `id`, so ``cancel(id:)`` can stop it; with
    /// `cancelInFlight`, starting it first cancels the work already running under `id` (a search
    /// that supersedes the last one).
    public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Effect {
        marked(EffectID(id), cancelInFlight: cancelInFlight)
    }

    private func marked(_ id: EffectID, cancelInFlight: Bool) -> Effect {
        switch operation {
        case .none, .send, .cancel:
            return self
        case .run(var run):
            run.id = id
            run.cancelInFlight = cancelInFlight
            return Effect(operation: .run(run))
        case .merge(let effects):
            return Effect(operation: .merge(effects.map { $0.marked(id, cancelInFlight: cancelInFlight) }))
        }
    }
}

extension Effect: Sendable where Action: Sendable {}
extension Effect.Operation: Sendable where Action: Sendable {}
extension Effect.Run: Sendable where Action: Sendable {}

extension Effect where Action: Sendable {
    /// Async work, run in a task after the reducer returns; `send` feeds actions back into the
    /// store on the main actor. The task is cancelled when the store goes away.
    public static func run(_ body: @escaping @Sendable (_ send: Send<Action>) async -> Void) -> Effect {
        Effect(operation: .run(Run(body: body)))
    }
}

/// An effect's cancellation id: any hashable, sendable value (a type, a string, an enum case),
/// told apart by its type as well as its value. `AnyHashable(1) == AnyHashable(1.0)` (an `Int`
/// also equals an `Int64` of the same value), so a feature that marks its work `1` and another
/// that marks its work `1.0` would otherwise cancel each other's.
struct EffectID: Hashable, @unchecked Sendable {
    let type: ObjectIdentifier
    // `AnyHashable` wraps only the `Sendable` values `init` accepts.
    let value: AnyHashable

    init<ID: Hashable & Sendable>(_ id: ID) {
        type = ObjectIdentifier(ID.self)
        value = AnyHashable(id)
    }
}
