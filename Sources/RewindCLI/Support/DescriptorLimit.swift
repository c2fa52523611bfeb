#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open descriptors. A server holds one per connection, and a soft limit
/// of 1,024 (a common default) is reached by a thousand idle clients while the hard limit
/// allows far more: `rewind serve` raises its soft limit to the hard one at start.
enum DescriptorLimit {
    /// Raises the soft limit to the hard one (on macOS, to at most `OPEN_MAX`, which the kernel
    /// requires there); returns the soft limit in force after, or `nil` when it cannot be read.
    @discardableResult
    static func raiseToHard() -> UInt64? {
        #if canImport(Glibc)
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        var target = limit.rlim_max
        #if canImport(Darwin)
        target = min(target, rlim_t(OPEN_MAX))
        #endif
        if limit.rlim_cur < target {
            var raised = limit
            raised.rlim_cur = target
            if setrlimit(resource, &raised) == 0 { return UInt64(target) }
        }
        return UInt64(limit.rlim_cur)
    }
}
