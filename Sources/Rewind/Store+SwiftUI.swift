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
    /// SwiftUI's `Binding(get:set:)` takes `@isolated(any) @Sendable` closures, so both closures
    /// here say that they run on the main actor, where the store lives, and capture only sendable
    /// values: the key path (a literal such as `\.city` is one) and the action function (a
    /// closure literal is one).
    ///
    /// Built on macOS and iOS; on Linux `make apple-check` compiles and runs it against a
    /// stand-in SwiftUI with the SDK's `Binding` declaration (Docs/Platforms.md).
    public func binding<Value>(_ keyPath: any KeyPath<State, Value> & Sendable,
                               send action: @escaping @MainActor @Sendable (Value) -> Action,
                               fileID: String = #fileID, line: Int = #line,
                               function: String = #function) -> Binding<Value> {
        Binding(
            get: { @MainActor in self.state[keyPath: keyPath] },
            set: { @MainActor value in self.send(action(value), fileID: fileID, line: line, function: function) }
        )
    }
}
#endif
