/// The SQL of each schema version, applied in order by ``LogOpener``. `Docs/LogFormat.md`
/// explains every table, column and trigger.
///
/// The insert path's constraints say `ON CONFLICT FAIL` and its triggers `RAISE(FAIL, …)`, not the
/// default ABORT: ABORT obliges SQLite to journal every INSERT in a statement transaction (a page
/// copy per page touched) in case it must undo part of it, which cost the writer a quarter of its
/// speed. FAIL keeps earlier rows of a multi-row statement; each of those rows passed the same
/// checks, so the invariants hold. UPDATE and DELETE keep ABORT: they are never on a hot path.
enum SchemaSQL {
    /// `migrations[v - 1]` brings a file from version `v - 1` to `v`.
    static let migrations: [String] = [version1, version2, version3, version4, version5, version6, version7]

    static let version1 = """
        CREATE TABLE rewind_schema(
            version    INTEGER PRIMARY KEY,
            applied_at REAL NOT NULL
        );
        CREATE TABLE sessions(
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            uuid       TEXT NOT NULL UNIQUE,
            app        TEXT NOT NULL,
            started_at REAL NOT NULL,
            ended_at   REAL,
            meta       TEXT NOT NULL DEFAULT '{}',
            replay_of  TEXT
        );
        CREATE TABLE events(
            id          INTEGER PRIMARY KEY,
            session_id  INTEGER NOT NULL ON CONFLICT FAIL REFERENCES sessions(id),
            seq         INTEGER NOT NULL ON CONFLICT FAIL,
            at          REAL NOT NULL ON CONFLICT FAIL,
            action_type TEXT NOT NULL ON CONFLICT FAIL,
            action      TEXT NOT NULL ON CONFLICT FAIL,
            patch       TEXT NOT NULL ON CONFLICT FAIL,
            inverse     TEXT NOT NULL ON CONFLICT FAIL,
            hash        INTEGER NOT NULL ON CONFLICT FAIL,
            duration_ns INTEGER NOT NULL ON CONFLICT FAIL DEFAULT 0,
            cause       INTEGER,
            coalesced   INTEGER NOT NULL ON CONFLICT FAIL DEFAULT 0,
            UNIQUE(session_id, seq) ON CONFLICT FAIL
        );
        CREATE TABLE keyframes(
            session_id INTEGER NOT NULL ON CONFLICT FAIL REFERENCES sessions(id),
            seq        INTEGER NOT NULL ON CONFLICT FAIL,
            state      TEXT NOT NULL ON CONFLICT FAIL,
            PRIMARY KEY(session_id, seq) ON CONFLICT FAIL
        );
        -- Full-text index of events.action; the writer adds each commit's rows in one statement.
        -- columnsize=0: no per-row size table (we never rank by bm25), a third cheaper to fill.
        CREATE VIRTUAL TABLE events_fts USING fts5(action, content='events', content_rowid='id', columnsize=0);
        -- Leaves that fill a 4 KiB page instead of FTS5's 1,000 bytes, and no merge work in every
        -- commit: segments are merged 16 at a time when a level fills (FTS5's crisis merge).
        INSERT INTO events_fts(events_fts, rank) VALUES ('pgsz', 4000);
        INSERT INTO events_fts(events_fts, rank) VALUES ('automerge', 0);
        -- Sessions being pruned, inside prune's transaction only: the delete triggers let them go.
        CREATE TABLE rewind_prune(session_id INTEGER PRIMARY KEY);

        CREATE TRIGGER events_extend_session BEFORE INSERT ON events
        WHEN NEW.seq IS NOT coalesce(
            (SELECT max(seq) + 1 FROM events WHERE session_id = NEW.session_id),
            (SELECT 0 FROM sessions WHERE id = NEW.session_id))
        BEGIN
            SELECT RAISE(FAIL, 'rewind: an event must extend its session: seqs are gap-free from 0 and the session must exist');
        END;
        CREATE TRIGGER events_no_update BEFORE UPDATE ON events
        BEGIN
            SELECT RAISE(ABORT, 'rewind: events are append-only: UPDATE is not allowed');
        END;
        CREATE TRIGGER events_no_delete BEFORE DELETE ON events
        WHEN OLD.session_id NOT IN (SELECT session_id FROM rewind_prune)
        BEGIN
            SELECT RAISE(ABORT, 'rewind: events are append-only: only prune deletes, whole sessions at a time');
        END;
        CREATE TRIGGER keyframes_need_event BEFORE INSERT ON keyframes
        WHEN NOT EXISTS (SELECT 1 FROM events WHERE session_id = NEW.session_id AND seq = NEW.seq)
        BEGIN
            SELECT RAISE(FAIL, 'rewind: a keyframe must belong to a stored event');
        END;
        CREATE TRIGGER keyframes_no_update BEFORE UPDATE ON keyframes
        BEGIN
            SELECT RAISE(ABORT, 'rewind: keyframes are append-only: UPDATE is not allowed');
        END;
        CREATE TRIGGER keyframes_no_delete BEFORE DELETE ON keyframes
        WHEN OLD.session_id NOT IN (SELECT session_id FROM rewind_prune)
        BEGIN
            SELECT RAISE(ABORT, 'rewind: keyframes are append-only: only prune deletes, whole sessions at a time');
        END;
        CREATE TRIGGER sessions_identity_fixed BEFORE UPDATE OF id, uuid, app, started_at, meta, replay_of ON sessions
        BEGIN
            SELECT RAISE(ABORT, 'rewind: a session''s identity is fixed: only ended_at may change');
        END;
        CREATE TRIGGER sessions_no_delete BEFORE DELETE ON sessions
        WHEN OLD.id NOT IN (SELECT session_id FROM rewind_prune)
        BEGIN
            SELECT RAISE(ABORT, 'rewind: sessions are removed only by prune');
        END;
        """

    /// Version 2 marks the events whose state or action held NaN or an infinity (recorded as
    /// strings), so a reader knows those strings were numbers. Rows exist only for such events.
    static let version2 = """
        CREATE TABLE non_finite(
            session_id INTEGER NOT NULL ON CONFLICT FAIL REFERENCES sessions(id),
            seq        INTEGER NOT NULL ON CONFLICT FAIL,
            pointers   TEXT NOT NULL ON CONFLICT FAIL,
            PRIMARY KEY(session_id, seq) ON CONFLICT FAIL
        );
        CREATE TRIGGER non_finite_need_event BEFORE INSERT ON non_finite
        WHEN NOT EXISTS (SELECT 1 FROM events WHERE session_id = NEW.session_id AND seq = NEW.seq)
        BEGIN
            SELECT RAISE(FAIL, 'rewind: a non-finite mark must belong to a stored event');
        END;
        CREATE TRIGGER non_finite_no_update BEFORE UPDATE ON non_finite
        BEGIN
            SELECT RAISE(ABORT, 'rewind: non-finite marks are append-only: UPDATE is not allowed');
        END;
        CREATE TRIGGER non_finite_no_delete BEFORE DELETE ON non_finite
        WHEN OLD.session_id NOT IN (SELECT session_id FROM rewind_prune)
        BEGIN
            SELECT RAISE(ABORT, 'rewind: non-finite marks are append-only: only prune deletes, whole sessions at a time');
        END;
        """

    /// Version 3 keeps where the app sent each action (`#fileID`, `#line`, `#function`; rows
    /// only for events that have one) and the run a session belongs to: the sessions one
    /// process started share it.
    static let version3 = """
        CREATE TABLE send_sites(
            session_id INTEGER NOT NULL ON CONFLICT FAIL REFERENCES sessions(id),
            seq        INTEGER NOT NULL ON CONFLICT FAIL,
            file       TEXT NOT NULL ON CONFLICT FAIL,
            line       INTEGER NOT NULL ON CONFLICT FAIL,
            function   TEXT NOT NULL ON CONFLICT FAIL,
            PRIMARY KEY(session_id, seq) ON CONFLICT FAIL
        );
        CREATE TRIGGER send_sites_need_event BEFORE INSERT ON send_sites
        WHEN NOT EXISTS (SELECT 1 FROM events WHERE session_id = NEW.session_id AND seq = NEW.seq)
        BEGIN
            SELECT RAISE(FAIL, 'rewind: a send site must belong to a stored event');
        END;
        CREATE TRIGGER send_sites_no_update BEFORE UPDATE ON send_sites
        BEGIN
            SELECT RAISE(ABORT, 'rewind: send sites are append-only: UPDATE is not allowed');
        END;
        CREATE TRIGGER send_sites_no_delete BEFORE DELETE ON send_sites
        WHEN OLD.session_id NOT IN (SELECT session_id FROM rewind_prune)
        BEGIN
            SELECT RAISE(ABORT, 'rewind: send sites are append-only: only prune deletes, whole sessions at a time');
        END;
        ALTER TABLE sessions ADD COLUMN run TEXT;
        CREATE INDEX sessions_run ON sessions(run) WHERE run IS NOT NULL;
        DROP TRIGGER sessions_identity_fixed;
        CREATE TRIGGER sessions_identity_fixed BEFORE UPDATE OF id, uuid, app, started_at, meta, replay_of, run ON sessions
        BEGIN
            SELECT RAISE(ABORT, 'rewind: a session''s identity is fixed: only ended_at may change');
        END;
        """

    /// Version 4 takes the full-text index off the commit path, and records which state hash each
    /// session's events carry (`sessions.hash_version`: 1, FNV-1a over the canonical text, for
    /// every session before it; 2, the tree hash). The writer commits events
    /// without indexing them and fills the index in a transaction of its own soon after
    /// (``LogWriter/Options/indexInterval``). The one row of `rewind_fts_progress` holds the
    /// highest `events.id` the index covers; every event above it is still to be indexed. Files
    /// written before version 4 indexed each event in the transaction that stored it, so their
    /// index covers every event.
    static let version4 = """
        CREATE TABLE rewind_fts_progress(
            one INTEGER PRIMARY KEY CHECK (one = 1),
            id  INTEGER NOT NULL
        );
        INSERT INTO rewind_fts_progress(one, id) SELECT 1, coalesce(max(id), 0) FROM events;
        CREATE TRIGGER rewind_fts_progress_no_delete BEFORE DELETE ON rewind_fts_progress
        BEGIN
            SELECT RAISE(ABORT, 'rewind: the full-text index progress row is never deleted');
        END;
        ALTER TABLE sessions ADD COLUMN hash_version INTEGER NOT NULL DEFAULT 1 CHECK (hash_version IN (1, 2));
        DROP TRIGGER sessions_identity_fixed;
        CREATE TRIGGER sessions_identity_fixed BEFORE UPDATE OF id, uuid, app, started_at, meta, replay_of, run, hash_version ON sessions
        BEGIN
            SELECT RAISE(ABORT, 'rewind: a session''s identity is fixed: only ended_at may change');
        END;
        """

    /// Version 5 records delivery (store and forward): a recorder that streams to `rewind serve`
    /// keeps its events in a local log first, and `deliveries` holds, per session, the server
    /// it is meant for and the highest seq that server acknowledged (-1: none yet). A session
    /// with a row whose `acked_seq` is below its last seq still has events to deliver. Unlike
    /// the rest of the log, the row changes; pruning a session removes it.
    static let version5 = """
        CREATE TABLE deliveries(
            session_id INTEGER PRIMARY KEY,
            server     TEXT NOT NULL,
            acked_seq  INTEGER NOT NULL DEFAULT -1
        );
        """

    /// The text member `key` of a session's `meta` (`$.version`, `$.device`), NULL when meta is
    /// not JSON (a hand-made row) or the member is missing or not a string. A CASE, not AND:
    /// SQLite evaluates CASE lazily, and `json_type` raises an error on text that is not JSON.
    static func metaText(_ column: String, _ key: String) -> String {
        "CASE WHEN NOT json_valid(\(column)) THEN NULL WHEN json_type(\(column), '$.\(key)') = 'text' THEN json_extract(\(column), '$.\(key)') END"
    }

    /// The tags of a session's `meta` as the rows `t` of `json_each` (with ``metaTagsWhere``):
    /// the first ``SessionTags/maxCount`` elements of `meta.tags` that are strings of 1 to
    /// ``SessionTags/maxBytes`` bytes. A table-valued function, not a subquery, so that it may
    /// name a column of a table before it in the join.
    static func metaTagsFrom(_ column: String) -> String {
        """
        json_each(CASE WHEN NOT json_valid(\(column)) THEN '[]' \
        WHEN json_type(\(column), '$.tags') = 'array' THEN json_extract(\(column), '$.tags') ELSE '[]' END) t
        """
    }

    static let metaTagsWhere = """
        t.type = 'text' AND t.key < \(SessionTags.maxCount) AND length(CAST(t.value AS BLOB)) BETWEEN 1 AND \(SessionTags.maxBytes)
        """

    /// Version 6 makes the session list filterable without reading every row: the app's
    /// version and device model, which the recorder puts in `meta`, become virtual columns
    /// computed from it (nothing is copied, so `meta` stays the one record and every session
    /// already stored has them at once), indexed with `app` and `started_at`; and the session's
    /// tags (`meta.tags`) get a table of their own, filled from `meta` by a trigger when a
    /// session is inserted (so every writer, import and branch fills it) and here for the
    /// sessions already stored. `meta` never changes (`sessions_identity_fixed`), so neither do
    /// they; pruning a session removes its tags.
    static let version6 = """
        ALTER TABLE sessions ADD COLUMN app_version TEXT GENERATED ALWAYS AS (\(metaText("meta", "version"))) VIRTUAL;
        ALTER TABLE sessions ADD COLUMN device TEXT GENERATED ALWAYS AS (\(metaText("meta", "device"))) VIRTUAL;
        CREATE INDEX sessions_app ON sessions(app);
        CREATE INDEX sessions_app_version ON sessions(app_version);
        CREATE INDEX sessions_device ON sessions(device);
        CREATE INDEX sessions_started_at ON sessions(started_at);
        CREATE TABLE session_tags(
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            tag        TEXT NOT NULL,
            PRIMARY KEY(session_id, tag)
        ) WITHOUT ROWID;
        CREATE INDEX session_tags_tag ON session_tags(tag, session_id);
        INSERT INTO session_tags(session_id, tag)
            SELECT DISTINCT s.id, t.value FROM sessions s, \(metaTagsFrom("s.meta")) WHERE \(metaTagsWhere);
        CREATE TRIGGER sessions_tags_from_meta AFTER INSERT ON sessions
        BEGIN
            INSERT INTO session_tags(session_id, tag)
                SELECT DISTINCT NEW.id, t.value FROM \(metaTagsFrom("NEW.meta")) WHERE \(metaTagsWhere);
        END;
        CREATE TRIGGER session_tags_no_update BEFORE UPDATE ON session_tags
        BEGIN
            SELECT RAISE(ABORT, 'rewind: session tags are append-only: UPDATE is not allowed');
        END;
        CREATE TRIGGER session_tags_no_delete BEFORE DELETE ON session_tags
        WHEN OLD.session_id NOT IN (SELECT session_id FROM rewind_prune)
        BEGIN
            SELECT RAISE(ABORT, 'rewind: session tags are append-only: only prune deletes, whole sessions at a time');
        END;
        """

    /// Version 7 binds a session to the app that started it (``SessionOwner``): `owner` is the
    /// SHA-256 digest of the session's secret, `secret` the secret itself, kept only in a log
    /// on the app's device. Both are set once: a session stored before version 7 has neither
    /// until the first open that gives a secret claims it; neither changes after.
    static let version7 = """
        ALTER TABLE sessions ADD COLUMN owner TEXT;
        ALTER TABLE sessions ADD COLUMN secret TEXT;
        CREATE TRIGGER sessions_owner_set_once BEFORE UPDATE OF owner, secret ON sessions
        WHEN (OLD.owner IS NOT NULL AND NEW.owner IS NOT OLD.owner) OR (OLD.secret IS NOT NULL AND NEW.secret IS NOT OLD.secret)
        BEGIN
            SELECT RAISE(ABORT, 'rewind: a session''s owner and secret are set once');
        END;
        """
}
