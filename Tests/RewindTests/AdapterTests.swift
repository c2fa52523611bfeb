import Foundation
import RewindJSON
import Testing
@testable import Rewind
import RewindTestSupport
@testable import RewindAppTestSupport

enum TimerAction: Codable, Sendable {
    case start, tick, reset
}

struct TimerModel: Codable, Sendable, Equatable {
    var running = false
    var seconds = 0
}

let timerReducer: Reducer<TimerModel, TimerAction> = { model, action in
    switch action {
    case .start: model.running = true
    case .tick: if model.running { model.seconds += 1 }
    case .reset: model = TimerModel()
    }
    return .none
}

@MainActor
final class TimerIntent: ModelIntent<TimerModel, TimerAction> {
    init() { super.init(model: TimerModel(), reducer: timerReducer) }
    func didTapStart() { send(.start) }
    func timerFired() { send(.tick) }
    func didTapReset() { send(.reset) }
}

@MainActor
@Suite("Adapters", .ownThreads)
struct AdapterTests {
    @Test("an MVI intent records its intents as actions") func anMVIIntentRecordsItsIntentsAsActions() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mvi.db")
        let intent = TimerIntent()
        let recorder = intent.store.record(to: .file(path), app: "Timer")
        intent.didTapStart()
        intent.timerFired()
        intent.timerFired()
        #expect(intent.model.seconds == 2)
        recorder.flush()
        let log = try LogStates(path: path)
        #expect(log.events.map(\.actionType) == ["@@INIT", "start", "tick", "tick"])
        #expect(log.states.last == (try LogStates.json(intent.model)))
    }

    @Test("a bloc takes events and streams states") func aBlocTakesEventsAndStreamsStates() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("bloc.db")
        let bloc = Bloc<TimerAction, TimerModel>(initialState: TimerModel(), mapEventToState: timerReducer)
        let recorder = bloc.store.record(to: .file(path), app: "Bloc")
        let states = bloc.states
        bloc.add(.start)
        bloc.add(.tick)
        bloc.add(.reset)
        var received: [TimerModel] = []
        for await state in states {
            received.append(state)
            if received.count == 3 { break }
        }
        #expect(received.map(\.seconds) == [0, 1, 0])
        #expect(received.map(\.running) == [true, true, false])
        recorder.flush()
        let log = try LogStates(path: path)
        #expect(log.events.count == 4)
        #expect(log.events[2].action == ["tick": [:]])
    }
}
