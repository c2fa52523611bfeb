import Foundation
import Rewind
import ShopModel

// `RewindShopChild [ACTION…]`: the shop of RewindStoreChild on Rewind's own `Store`, for the CLI
// tests that run the same commands against both kinds of app. It records with no destination in
// its code (REWIND_SERVER, else the default log), prints `session UUID`, sends each ACTION (JSON,
// as the user would), and runs until it is killed, taking the inspector's commands.

let shopReducer: Reducer<ShopState, ShopAction> = { state, action in
    guard let next = state.apply(action) else { return .none }
    return .send(next)
}

let store = Store(initialState: ShopState(), reducer: shopReducer)
let recorder = store.record(app: "ShopChild", commands: .accepted)
FileHandle.standardOutput.write(Data("session \(recorder.session.uuid)\n".utf8))
for argument in CommandLine.arguments.dropFirst() {
    store.send(try JSONDecoder().decode(ShopAction.self, from: Data(argument.utf8)))
}
dispatchMain()
