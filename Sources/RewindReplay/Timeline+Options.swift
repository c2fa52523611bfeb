extension Timeline {
    /// How many rebuilt states a ``Timeline`` keeps.
    ///
    /// The byte bound counts each state's approximate compact JSON size (the keyframe's stored
    /// size, adjusted by each patch applied since), so it over-counts: cached states share the
    /// subtrees no patch touched.
    public struct Options: Sendable, Equatable {
        /// The most states kept; 0 turns the cache off.
        public var cacheEntries: Int
        /// The most bytes of states kept, approximately.
        public var cacheBytes: Int

        /// Bounds of 64 states and 64 MB unless given.
        public init(cacheEntries: Int = 64, cacheBytes: Int = 64 << 20) {
            self.cacheEntries = cacheEntries
            self.cacheBytes = cacheBytes
        }

        /// No cache: every call rebuilds from a keyframe.
        public static let uncached = Options(cacheEntries: 0, cacheBytes: 0)
    }
}
