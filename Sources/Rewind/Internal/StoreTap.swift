import Foundation
import RewindLog

/// What a store calls after each reducer run while it records: `(action, state, time, reducer
/// nanoseconds, cause, send site)` in, the recorded seq out (`nil` when nothing was recorded).
@usableFromInline
struct StoreTap<State, Action> {
    let record: (Action, State, Date, Int64, Int64?, SendSite?) -> Int64?

    @usableFromInline
    init(record: @escaping (Action, State, Date, Int64, Int64?, SendSite?) -> Int64?) {
        self.record = record
    }
}
