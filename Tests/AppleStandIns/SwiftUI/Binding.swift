// A stand-in for the part of SwiftUI that Rewind uses, so that `canImport(SwiftUI)` code is
// compiled on Linux (`make apple-check`). Never built on Apple platforms, where the real SwiftUI
// wins: the manifest adds this target only when REWIND_APPLE_SHAPES is set.
//
// Shapes from the iOS 18.0 / macOS 15.0 SDKs (Xcode 16), SwiftUI.swiftinterface: the
// declarations below are the SDK's public ones, attributes included. What the SDK does inside
// is not copied (it is not public); the stand-in keeps the two closures so that a check can
// call them through their own isolation.

/// `SwiftUI.Binding`, as the iOS 18 SDK declares it.
@frozen @propertyWrapper @dynamicMemberLookup
public struct Binding<Value> {
    /// Stand-in storage (the SDK's is a location box; not public).
    @usableFromInline let standInGet: @isolated(any) @Sendable () -> Value
    @usableFromInline let standInSet: @isolated(any) @Sendable (Value) -> Void

    /// The SDK's declaration, attributes included.
    @preconcurrency
    public init(get: @escaping @isolated(any) @Sendable () -> Value,
                set: @escaping @isolated(any) @Sendable (Value) -> Void) {
        standInGet = get
        standInSet = set
    }

    /// The SDK's shape. SwiftUI calls the closures synchronously on the main actor through
    /// machinery that is not public; a stand-in cannot, so reading here traps. Checks use
    /// ``standInRead()`` and ``standInWrite(_:)``.
    public var wrappedValue: Value {
        get { fatalError("stand-in SwiftUI: read a binding with standInRead()") }
        nonmutating set { fatalError("stand-in SwiftUI: write a binding with standInWrite(_:)") }
    }

    public var projectedValue: Binding<Value> { self }

    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> {
        fatalError("stand-in SwiftUI: member bindings are not modelled")
    }
}

// Not SwiftUI API: what a check needs to drive a binding without SwiftUI's machinery.
extension Binding where Value: Sendable {
    /// The isolation the getter was made with (`MainActor.shared` for a main-actor closure).
    public var standInGetterIsolation: (any Actor)? { standInGet.isolation }
    /// The isolation the setter was made with.
    public var standInSetterIsolation: (any Actor)? { standInSet.isolation }
    /// Calls the getter in its own isolation, as SwiftUI would on the main actor.
    public func standInRead() async -> Value { await standInGet() }
    /// Calls the setter in its own isolation, as a control does when the user changes it.
    public func standInWrite(_ value: Value) async { await standInSet(value) }
}
