/// The difference between two documents as a pair of JSON Patches: `forward` turns `a` into
/// `b`, `inverse` turns `b` back into `a`.
///
/// ```swift
/// let diff = JSONDiff(from: ["name": "Ada", "tags": ["x"]], to: ["name": "Grace", "tags": []])
/// diff.forward   // [{"op":"replace","path":"/name","value":"Grace"},{"op":"remove","path":"/tags/0"}]
/// diff.inverse   // [{"op":"add","path":"/tags/0","value":"x"},{"op":"replace","path":"/name","value":"Ada"}]
/// ```
///
/// Subtrees that are equal are skipped at once; copies of one value that share buffers
/// (copy-on-write) compare without being walked. Objects are compared member by member.
/// Arrays drop their common head and tail, then line up the rest by a longest common
/// subsequence (Myers): elements that are objects with an `id` member (else `_id`) are matched
/// by it, so one item inserted into a long list is one `add` and a changed item gives operations
/// inside it; other elements are matched by value, and an element replaced at the same place is
/// diffed inside when it is the same kind of container with mostly the same keys.
///
/// Indices in the operations are for sequential application, as RFC 6902 applies them.
/// `inverse.operations[count - 1 - i]` undoes `forward.operations[i]`.
public struct JSONDiff: Sendable, Hashable {
    /// Turns the source document into the target.
    public var forward: JSONPatch
    /// Turns the target document back into the source.
    public var inverse: JSONPatch
    /// What changed, for people: one entry per forward operation, in the same order.
    public var changes: [JSONChange]

    /// Computes the diff that takes `a` to `b`.
    public init(from a: JSONValue, to b: JSONValue) {
        var builder = DiffBuilder()
        builder.diff(a, b)
        forward = JSONPatch(builder.forward)
        inverse = JSONPatch(builder.inverse.reversed())
        changes = builder.changes
    }

    /// `true` when the two documents are equal.
    public var isEmpty: Bool { forward.isEmpty }
}
