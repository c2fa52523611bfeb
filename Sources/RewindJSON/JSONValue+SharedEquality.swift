extension JSONValue {
    /// JSON equality (as `==`) that answers in O(1) for every subtree the two values share by
    /// copy-on-write. The replay engine compares a state with one derived from it by a patch and
    /// its inverse: only the patched paths are compared member by member.
    package func isEqual(sharingBuffersWith other: JSONValue) -> Bool {
        isFastEqual(to: other)
    }
}
