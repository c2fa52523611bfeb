import Foundation
import RewindLog

/// What a store calls after each reducer run while it records: `(action, state, time, reducer
/// nanoseconds, cause, send site)` in, the recorded seq out (`nil` when nothing was recorded).
@usableFromInline
struct StoreTap<State, Action> {
    let record: (Action, State, Date, Int64, Int64?, SendSite?) -> Int64?
    /// Before the reducer runs: the crash journal notes the action's send site.
    let willReduce: (Action, SendSite?) -> Void

    @usableFromInline
    init(record: @escaping (Action, State, Date, Int64, Int64?, SendSite?) -> Int64?, willReduce: @escaping (Action, SendSite?) -> Void) {
        self.record = record
        self.willReduce = willReduce
    }
}
