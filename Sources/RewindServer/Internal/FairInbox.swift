import RewindSupport

/// Work from many senders, served fairly: a FIFO per key (a connection), and keys taking turns
/// one item per turn, so a key with a thousand items waiting delays another key's next item by
/// about one item, never by the thousand. App ingest and inspector queries both serve their
/// connections through one.
///
/// A plain value with no lock of its own: its owner keeps it under a lock beside whatever else
/// it guards, and does the waking (a drain, a worker) outside that lock, as the results say.
///
/// The two owners differ in three ways, set when it is made:
/// - ``Rotation``: ingest's one drain takes a whole round at a time and a key goes straight back
///   into line; a query worker holds a key's item until it has answered it, and the key rejoins
///   the line only then, so each inspector's requests run one at a time.
/// - ``Marks``: ingest stops reading a connection whose FIFO passes a bound and reads it again
///   once it drains below a lower one (flow control); the inbox says when, the owner acts.
/// - `limit`: queries refuse an inspector's request outright once it has that many waiting or
///   running.
///
/// What a connection's close does is up to the owner: ingest queues its close behind its
/// messages (so they are handled first); queries drop what is waiting at once, ``remove(_:)``.
package struct FairInbox<Key: Hashable, Item> {
    /// When a key whose item was taken is back in line.
    package enum Rotation: Sendable {
        /// At once, at the back, if it has more: for one consumer that takes rounds.
        case rejoinAtOnce
        /// Once its owner calls ``FairInbox/finish(_:)``: the key's items are handled one at a
        /// time, while other keys' items are handled beside it.
        case rejoinWhenFinished
    }

    /// When a key's FIFO is marked paused (its sender should stop sending) and resumed.
    package struct Marks: Sendable, Equatable {
        /// Paused once this many items wait, or this many bytes.
        package var pauseItems: Int
        package var pauseBytes: Int
        /// Resumed once no more than this many items wait, and no more than this many bytes.
        package var resumeItems: Int
        package var resumeBytes: Int

        /// Resumed, unless told otherwise, at half of each pause mark.
        package init(pauseItems: Int, pauseBytes: Int, resumeItems: Int? = nil, resumeBytes: Int? = nil) {
            (self.pauseItems, self.pauseBytes) = (pauseItems, pauseBytes)
            (self.resumeItems, self.resumeBytes) = (resumeItems ?? pauseItems / 2, resumeBytes ?? pauseBytes / 2)
            precondition(self.resumeItems >= 0 && self.resumeBytes >= 0 && self.resumeItems < pauseItems && self.resumeBytes < pauseBytes,
                         "the resume marks must lie below the pause marks")
        }
    }

    /// What ``append(_:to:bytes:mayPause:)`` did.
    package enum Admission: Equatable {
        /// Over the `limit`: the item was not queued.
        case refused
        /// Queued. `joinedLine`: the key was not in line and now is (its owner has one more turn
        /// to serve). `paused`: the key was marked paused just now.
        case accepted(joinedLine: Bool, paused: Bool)

        /// The key was not in line and now is.
        package var joinedLine: Bool {
            if case .accepted(true, _) = self { return true }
            return false
        }

        /// The key was marked paused just now.
        package var paused: Bool {
            if case .accepted(_, true) = self { return true }
            return false
        }
    }

    /// One item taken, and whether taking it resumed its key (its pause mark was cleared).
    package struct Turn {
        package var key: Key
        package var item: Item
        package var resumed: Bool
    }

    private struct Queue {
        var items = RingQueue<(item: Item, bytes: Int)>()
        var bytes = 0
        var paused = false
        /// One of its items is being handled (``Rotation/rejoinWhenFinished`` only).
        var taken = false
    }

    package let rotation: Rotation
    package let marks: Marks?
    /// The most items of one key waiting or being handled; more are refused.
    package let limit: Int?
    /// Every key with items waiting or one being handled. A key is in `line` exactly when it has
    /// items waiting and none being handled.
    private var queues: [Key: Queue] = [:]
    /// Keys in the order they take turns.
    private var line = RingQueue<Key>()

    package init(rotation: Rotation, marks: Marks? = nil, limit: Int? = nil) {
        self.rotation = rotation
        self.marks = marks
        self.limit = limit
    }

    /// Queues `item` at the back of `key`'s FIFO. `bytes` counts toward the pause marks; an item
    /// with `mayPause` false (a close) never sets the mark itself.
    @discardableResult
    package mutating func append(_ item: Item, to key: Key, bytes: Int = 0, mayPause: Bool = true) -> Admission {
        if let limit, load(of: key) >= limit { return .refused }
        var queue = queues.removeValue(forKey: key) ?? Queue()
        defer { queues[key] = queue }
        let joins = queue.items.isEmpty && !queue.taken
        if joins { line.append(key) }
        queue.items.append((item, bytes))
        queue.bytes += bytes
        var paused = false
        if let marks, mayPause, !queue.paused,
           queue.items.count >= marks.pauseItems || queue.bytes >= marks.pauseBytes {
            queue.paused = true
            paused = true
        }
        return .accepted(joinedLine: joins, paused: paused)
    }

    /// Takes the front item of the key whose turn it is; nil when no key is in line.
    package mutating func next() -> Turn? {
        guard let key = line.popFirst(), var queue = queues.removeValue(forKey: key),
              let (item, bytes) = queue.items.popFirst() else { return nil }
        queue.bytes -= bytes
        var resumed = false
        if let marks, queue.paused, queue.items.count <= marks.resumeItems, queue.bytes <= marks.resumeBytes {
            queue.paused = false
            resumed = true
        }
        switch rotation {
        case .rejoinAtOnce:
            if !queue.items.isEmpty { line.append(key) }
        case .rejoinWhenFinished:
            queue.taken = true
        }
        if !queue.items.isEmpty || queue.taken { queues[key] = queue }
        return Turn(key: key, item: item, resumed: resumed)
    }

    /// One item from every key in line, in turn order (with ``Rotation/rejoinAtOnce``, the keys
    /// that have more are then in line again, in the same order, ahead of any key that joins).
    package mutating func nextRound() -> [Turn] {
        var turns: [Turn] = []
        turns.reserveCapacity(line.count)
        for _ in 0..<line.count {
            guard let turn = next() else { break }
            turns.append(turn)
        }
        return turns
    }

    /// The item taken from `key` is handled (``Rotation/rejoinWhenFinished``): the key goes to the
    /// back of the line if it has more. Returns whether it did.
    @discardableResult
    package mutating func finish(_ key: Key) -> Bool {
        guard var queue = queues.removeValue(forKey: key) else { return false }
        queue.taken = false
        guard !queue.items.isEmpty else { return false }
        queues[key] = queue
        line.append(key)
        return true
    }

    /// Forgets `key`: its waiting items and its place in line go (an item being handled is not
    /// recalled; its ``finish(_:)`` then does nothing).
    package mutating func remove(_ key: Key) {
        guard let queue = queues.removeValue(forKey: key) else { return }
        guard !queue.items.isEmpty, !queue.taken else { return }
        // Rare (a connection closing with requests waiting), and the line holds one entry per
        // connection at most, so rebuilding it is cheap.
        var kept = RingQueue<Key>(minimumCapacity: line.count)
        kept.append(contentsOf: line.lazy.filter { $0 != key })
        line = kept
    }

    /// Nothing waits and nothing is being handled.
    package var isEmpty: Bool { queues.isEmpty }

    /// How many keys are in line for a turn.
    package var lineCount: Int { line.count }

    /// Items waiting, over every key.
    package var itemCount: Int { queues.values.reduce(0) { $0 + $1.items.count } }

    /// How many of `key`'s items wait (not counting one being handled).
    package func waiting(for key: Key) -> Int { queues[key]?.items.count ?? 0 }

    /// How many of `key`'s items wait or are being handled: what `limit` bounds.
    package func load(of key: Key) -> Int {
        guard let queue = queues[key] else { return 0 }
        return queue.items.count + (queue.taken ? 1 : 0)
    }

    /// The bytes of `key`'s waiting items.
    package func bytes(for key: Key) -> Int { queues[key]?.bytes ?? 0 }

    /// Whether `key` is marked paused.
    package func isPaused(_ key: Key) -> Bool { queues[key]?.paused ?? false }
}
