import CLibWebSockets
import CSQLite
import Testing
import RewindTestSupport

@Suite("System libraries link and work", .ownThreads)
struct SystemLibraryTests {
    @Test("SQLite opens an in-memory database and runs a query")
    func sqliteInMemory() throws {
        var db: OpaquePointer?
        #expect(sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK)
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        #expect(sqlite3_prepare_v2(db, "SELECT 6 * 7, ?1", -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        #expect(sqlite3_bind_text(statement, 1, "bound", -1, rewind_sqlite_transient()) == SQLITE_OK)
        #expect(sqlite3_step(statement) == SQLITE_ROW)
        #expect(sqlite3_column_int(statement, 0) == 42)
        #expect(String(cString: sqlite3_column_text(statement, 1)) == "bound")
    }

    @Test("libwebsockets creates and destroys a context with no listener")
    func lwsContext() {
        lws_set_log_level(0, nil)
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.gid = -1
        info.uid = -1
        let context = lws_create_context(&info)
        #expect(context != nil)
        #expect(rewind_lws_pre() >= 16)
        lws_context_destroy(context)
    }
}
