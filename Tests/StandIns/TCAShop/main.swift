import ComposableArchitecture
import Foundation

// `TCAShop [ACTION…]`: the docs' TCA wiring (Recorded.swift) around a shop feature, against the
// TCA stand-in. It records where the environment says (REWIND_SERVER), sends each ACTION (JSON),
// prints `state JSON` (keys sorted) after each change of the store's state, and runs until it is
// killed. StandInSnippetTests drives the inspector's commands against it.

/// The state as the app's views read it (its computed names, not the macro's stored `_name`).
struct Shown: Encodable {
    var cart: [Int]
    var total: Int
    var lastOrder: String?
}

let store = makeStore()
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
store.didChange = { state in
    let shown = Shown(cart: state.cart, total: state.total, lastOrder: state.lastOrder)
    let line = "state " + String(decoding: (try? encoder.encode(shown)) ?? Data(), as: UTF8.self) + "\n"
    FileHandle.standardOutput.write(Data(line.utf8))
}
for argument in CommandLine.arguments.dropFirst() {
    store.send(try JSONDecoder().decode(AppFeature.Action.self, from: Data(argument.utf8)))
}
dispatchMain()
