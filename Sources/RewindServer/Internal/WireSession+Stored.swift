import RewindLog
import RewindWire

extension WireSession {
    /// A stored session as the inspector protocol shows it: `live` when an app streams it now
    /// (here, or on another instance of a team store).
    init(_ info: SessionInfo, live: Bool) {
        self.init(id: info.id, uuid: info.uuid, app: info.app, startedAt: info.startedAt.timeIntervalSince1970,
                  endedAt: info.endedAt?.timeIntervalSince1970, live: live, eventCount: info.eventCount,
                  lastSeq: info.lastSeq, replayOf: info.replayOf, meta: info.meta, run: info.run,
                  appVersion: info.appVersion, device: info.device, os: info.os, tags: info.tags, crash: info.crash)
    }
}
