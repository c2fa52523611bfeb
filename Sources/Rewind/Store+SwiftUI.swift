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
    /// Built on macOS and iOS only; on Linux this file compiles to nothing.
    public func binding<Value>(_ keyPath: KeyPath<State, Value>, send action: @escaping (Value) -> Action,
                               fileID: String = #fileID, line: Int = #line,
                               function: String = #function) -> Binding<Value> {
        Binding(
            get: { self.state[keyPath: keyPath] },
            set: { value in self.send(action(value), fileID: fileID, line: line, function: function) }
        )
    }
}
#endif
