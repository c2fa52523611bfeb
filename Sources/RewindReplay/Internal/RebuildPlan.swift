/// Where rebuilding one state starts, and in which direction it walks.
///
/// Costs are counted in patches applied. Loading a keyframe costs more than a patch, in
/// proportion to the state's size (parsing 1 KB takes about as long as applying one small
/// patch), so a cached neighbour ten patches away beats a keyframe of a large state.
struct RebuildPlan: Equatable {
    enum Start: Equatable {
        case cached
        case keyframe
    }

    var start: Start
    /// The seq of the state the rebuild starts from.
    var from: Int64
    /// The seq of the state wanted.
    var target: Int64

    /// Patches to apply: forward ones when `from < target`, inverse ones when `from > target`.
    var steps: Int64 { from < target ? target - from : from - target }

    /// The estimated cost of loading a keyframe of a state of `stateBytes` bytes, in patches.
    static func keyframeCost(stateBytes: Int) -> Int64 {
        1 + Int64(stateBytes / 1_024)
    }

    /// The cheapest start: a cached state below or above `target` (patches forward or inverse
    /// patches back), or the nearest keyframe at or before it, or at or after it. `nil` when
    /// there is none of these.
    static func cheapest(target: Int64, cachedBelow: Int64?, cachedAbove: Int64?,
                         keyframeBefore: Int64?, keyframeAfter: Int64?, keyframeCost: Int64) -> RebuildPlan? {
        var candidates: [(plan: RebuildPlan, cost: Int64)] = []
        // Cached starts first: on a tie they win, since they cost no read at all.
        for seq in [cachedBelow, cachedAbove].compactMap({ $0 }) {
            let plan = RebuildPlan(start: .cached, from: seq, target: target)
            candidates.append((plan, plan.steps))
        }
        for seq in [keyframeBefore, keyframeAfter].compactMap({ $0 }) {
            let plan = RebuildPlan(start: .keyframe, from: seq, target: target)
            candidates.append((plan, plan.steps + keyframeCost))
        }
        return candidates.min { $0.cost < $1.cost }?.plan
    }
}
