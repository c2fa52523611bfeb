import Foundation
import RewindTestSupport
import Testing

/// The PostgreSQL fixture the store tests stand on: a real server, real databases, a real restart.
@Suite(.ownThreads) struct PostgresTestClusterTests {
    @Test("the shared cluster answers on loopback") func theSharedClusterAnswersOnLoopback() throws {
        let cluster = try PostgresTestCluster.shared()
        #expect(try cluster.psql("select 1") == "1")
        #expect(cluster.url == "postgres://rewind:rewind@127.0.0.1:\(cluster.port)/postgres")
        // The same cluster for every caller of the process.
        #expect(try PostgresTestCluster.shared() === cluster)
        #expect(try cluster.psql("select inet_server_addr(), inet_server_port()") == "127.0.0.1|\(cluster.port)")
        // Enough connections for several servers' pools at once.
        #expect(try Int(cluster.psql("show max_connections")) ?? 0 >= 200)
    }

    @Test("two created databases are distinct") func twoCreatedDatabasesAreDistinct() throws {
        let cluster = try PostgresTestCluster.shared()
        let first = try cluster.createDatabase(prefix: "distinct")
        let second = try cluster.createDatabase(prefix: "distinct")
        defer {
            try? cluster.dropDatabase(first)
            try? cluster.dropDatabase(second)
        }
        #expect(first != second)
        #expect(first.hasPrefix("postgres://rewind:rewind@127.0.0.1:\(cluster.port)/distinct_"))
        try cluster.psql("create table only_here (n int); insert into only_here values (7)", database: first)
        #expect(try cluster.psql("select n from only_here", database: first) == "7")
        #expect(try cluster.psql("select count(*) from pg_tables where tablename = 'only_here'", database: second) == "0")
        #expect(try cluster.psql("select current_database()", database: second) == String(second.split(separator: "/").last!))
    }

    @Test("a dropped database is gone and says so") func aDroppedDatabaseIsGoneAndSaysSo() throws {
        let cluster = try PostgresTestCluster.shared()
        let database = try cluster.createDatabase(prefix: "Dropped-Soon")
        #expect(database.contains("/dropped_soon_"))
        try cluster.dropDatabase(database)
        let error = #expect(throws: PostgresTestClusterError.self) { try cluster.psql("select 1", database: database) }
        #expect(error?.reason.contains("does not exist") == true)
        // Dropping it again is no error.
        try cluster.dropDatabase(database)
    }

    @Test("a failing statement is one sentence with PostgreSQL's reason") func aFailingStatementIsOneSentenceWithPostgresReason() throws {
        let cluster = try PostgresTestCluster.shared()
        let error = #expect(throws: PostgresTestClusterError.self) { try cluster.psql("select 1; select * from no_such_table; select 2") }
        #expect(error?.reason.contains("relation \"no_such_table\" does not exist") == true)
        #expect(error?.reason.contains("\n") == false)
    }

    @Test("a wrong password is refused") func aWrongPasswordIsRefused() throws {
        let cluster = try PostgresTestCluster.shared()
        let wrong = "postgres://rewind:wrong@127.0.0.1:\(cluster.port)/postgres"
        let error = #expect(throws: PostgresTestClusterError.self) { try cluster.psql("select 1", database: wrong) }
        #expect(error?.reason.contains("password authentication failed") == true)
    }

    @Test("the shared cluster is not stopped by a test") func theSharedClusterIsNotStoppedByATest() throws {
        let cluster = try PostgresTestCluster.shared()
        #expect(throws: PostgresTestClusterError.self) { try cluster.stop() }
        #expect(throws: PostgresTestClusterError.self) { try cluster.restart() }
        cluster.destroy()
        #expect(try cluster.psql("select 1") == "1")
    }

    @Test("a private cluster keeps its data across restarts and refuses while stopped") func aPrivateClusterKeepsItsDataAcrossRestartsAndRefusesWhileStopped() throws {
        let cluster = try PostgresTestCluster.startPrivate()
        defer { cluster.destroy() }
        let shared = try PostgresTestCluster.shared()
        #expect(cluster.port != shared.port)

        let database = try cluster.createDatabase(prefix: "restart")
        try cluster.psql("create table kept (id bigint, note text); insert into kept values (1, 'before'), (2, 'ünïcode')", database: database)
        let startedBefore = try cluster.psql("select pg_postmaster_start_time()")

        try cluster.restart()
        // A new server process, on the same port, with the same rows.
        #expect(try cluster.psql("select pg_postmaster_start_time()") != startedBefore)
        #expect(try cluster.psql("select id, note from kept order by id", database: database) == "1|before\n2|ünïcode")

        try cluster.stop()
        let error = #expect(throws: PostgresTestClusterError.self) { try cluster.psql("select 1", database: database) }
        #expect(error?.reason.contains("Connection refused") == true)

        // A stopped cluster starts again with its data.
        try cluster.restart()
        #expect(try cluster.psql("select count(*) from kept", database: database) == "2")

        let directory = try #require(cluster.directory)
        #expect(FileManager.default.fileExists(atPath: directory + "/data/PG_VERSION"))
        cluster.destroy()
        #expect(!FileManager.default.fileExists(atPath: directory))
        #expect(throws: PostgresTestClusterError.self) { try cluster.restart() }
    }
}
