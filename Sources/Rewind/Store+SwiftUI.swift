#if canImport(SwiftUI)
import SwiftUI

extension Store {
    /// A binding for a SwiftUI control: it reads `keyPath` of the state and sends
    /// `send(newValue)` when the control changes it. The action's send site is the line that
    /// made the binding.
    ///
    /// ```swift
    /// TextField("City", text: store.binding(\.city, send: { .cityChanged($0) }))
    /// ```
    ///
    /// SwiftUI's `Binding(get:set:)` takes `@isolated(any) @Sendable` closures. Both closures
    /// here are explicitly `@MainActor`, where the store lives: a closure that does not say so is
    /// nonisolated there, and could neither read `state` nor `send` (nor carry a non-Sendable
    /// action across). Main-actor closures made on the main actor may capture the key path and
    /// the action function as they are, so neither has to be `Sendable`.
    ///
    /// Built on macOS and iOS; on Linux `make apple-check` compiles and runs it against a
    /// stand-in SwiftUI with the SDK's `Binding` declaration (Docs/Platforms.md).
    public func binding<Value>(_ keyPath: KeyPath<State, Value>,
                               send action: @escaping (Value) -> Action,
                               fileID: String = #fileID, line: Int = #line,
                               function: String = #function) -> Binding<Value> {
        Binding(
            get: { @MainActor in self.state[keyPath: keyPath] },
            set: { @MainActor value in self.send(action(value), fileID: fileID, line: line, function: function) }
        )
    }
}
#endif
