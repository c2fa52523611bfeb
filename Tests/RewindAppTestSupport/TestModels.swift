import Foundation
import Rewind

struct Auth: Codable, Sendable, Equatable {
    var user = "ada"
    var token = ""
}

struct AppState: Codable, Sendable, Equatable {
    var count = 0
    var items: [String] = []
    var auth = Auth()
    var ratio: Double = 1
    var loaded: Int?
}

enum AppAction: Codable, Sendable, Equatable {
    case increment
    case add(Int)
    case append(String)
    case setToken(String)
    case setRatio(Double)
    case load
    case loaded(Int)
}

/// The reducer the tests record with.
let appReducer: Reducer<AppState, AppAction> = { state, action in
    switch action {
    case .increment:
        state.count += 1
    case .add(let amount):
        state.count += amount
    case .append(let item):
        state.items.append(item)
    case .setToken(let token):
        state.auth.token = token
    case .setRatio(let ratio):
        state.ratio = ratio
    case .load:
        return .run { send in
            await send(.loaded(42))
        }
    case .loaded(let value):
        state.loaded = value
    }
    return .none
}

/// The same reducer with a bug: `add` adds one too many once the count passes 10.
let changedReducer: Reducer<AppState, AppAction> = { state, action in
    if case .add(let amount) = action, state.count > 10 {
        state.count += amount + 1
        return .none
    }
    return appReducer(&state, action)
}

/// An action that is not `Encodable`: recorded by reflection.
enum PlainAction: Sendable {
    case reset
    case move(from: Int, to: Int)
    case rename(String)
    case tag(String, Int)
}
