import Foundation
import ReSwift

// `ReSwiftShop [ACTION…]`: the docs' ReSwift wiring (Recorded.swift) around a shop reducer,
// against the ReSwift stand-in. It records where the environment says (REWIND_SERVER), dispatches
// each ACTION (JSON), prints `state JSON` (keys sorted) after each change of the store's state,
// and runs until it is killed. StandInSnippetTests drives the inspector's commands against it.

final class Printer: StoreSubscriber {
    let encoder = JSONEncoder()

    init() {
        encoder.outputFormatting = [.sortedKeys]
    }

    func newState(state: AppState) {
        let line = "state " + String(decoding: (try? encoder.encode(state)) ?? Data(), as: UTF8.self) + "\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}

let store = makeStore()
let printer = Printer()
store.subscribe(printer)
for argument in CommandLine.arguments.dropFirst() {
    store.dispatch(try JSONDecoder().decode(AppAction.self, from: Data(argument.utf8)))
}
dispatchMain()
