import Foundation
import RewindJSON
import RewindWebSocket

/// An inspector on `/inspect` that keeps every JSON message and waits for the one it wants.
final class DemoInspector: WebSocketClientDelegate, @unchecked Sendable {
    private let condition = NSCondition()
    private var messages: [JSONValue] = []
    private var failure: String?
    private let client: WebSocketClient

    init(port: Int) throws {
        client = try WebSocketClient(url: "ws://127.0.0.1:\(port)/inspect", subprotocol: "rewind.inspect.v1")
        try client.connect(delegate: self)
    }

    func send(_ request: JSONValue) {
        _ = client.send(text: request.serialized(.compact))
    }

    /// The first message `predicate` accepts, once it arrived; `nil` after `timeout` seconds.
    func wait(timeout: Double = 60, for predicate: (JSONValue) -> Bool) -> JSONValue? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let found = messages.first(where: predicate) { return found }
            if failure != nil || !condition.wait(until: deadline) { return messages.first(where: predicate) }
        }
    }

    /// Every message so far.
    var received: [JSONValue] {
        condition.lock()
        defer { condition.unlock() }
        return messages
    }

    func close() {
        client.close()
    }

    func didConnect(_ connection: WebSocketConnection) {}

    func didFailToConnect(reason: String) {
        condition.lock()
        failure = reason
        condition.broadcast()
        condition.unlock()
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        guard let value = try? JSONValue(parsing: message.bytes) else { return }
        condition.lock()
        messages.append(value)
        condition.broadcast()
        condition.unlock()
    }

    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {
        condition.lock()
        failure = "closed"
        condition.broadcast()
        condition.unlock()
    }
}

/// A child process whose output (stdout and stderr together) is collected as it comes.
///
/// Spawned with an empty signal mask and default SIGINT/SIGTERM handling: the test runner's
/// threads block most signals and `Process` passes that mask on, so a shell script started by
/// it could never see the SIGINT the test sends (a Ctrl-C from a terminal does reach it).
final class OutputProcess: @unchecked Sendable {
    let pid: pid_t
    private let condition = NSCondition()
    private var output = ""
    private var status: Int32?
    /// The output pipe reached its end: every writer (the script and its children) closed it.
    private var outputEnded = false

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        close(fds[1])
        guard spawned == 0 else {
            close(fds[0])
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT)
        }
        pid = child
        let spawnedPID = child
        let reader = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
        Thread.detachNewThread { [self] in
            while true {
                let data = reader.availableData
                if data.isEmpty {
                    condition.lock()
                    outputEnded = true
                    condition.broadcast()
                    condition.unlock()
                    break
                }
                condition.lock()
                output += String(decoding: data, as: UTF8.self)
                condition.broadcast()
                condition.unlock()
            }
        }
        Thread.detachNewThread { [self] in
            var raw: Int32 = 0
            while waitpid(spawnedPID, &raw, 0) == -1 && errno == EINTR {}
            // WIFEXITED / WEXITSTATUS, spelled out (the C macros do not import).
            let code = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            condition.lock()
            status = code
            condition.broadcast()
            condition.unlock()
        }
    }

    var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return status == nil
    }

    var text: String {
        condition.lock()
        defer { condition.unlock() }
        return output
    }

    /// Waits until `predicate` holds for the output so far (or `timeout` seconds pass).
    func waitForOutput(timeout: Double = 60, _ predicate: (String) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(output) {
            if status != nil || !condition.wait(until: deadline) { return predicate(output) }
        }
        return true
    }

    /// Waits for the process to exit and its output to end (everything it and its children wrote
    /// has been read), and returns its status; `nil` if it has not exited within `timeout` seconds.
    func waitForExit(timeout: Double = 30) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while status == nil || !outputEnded {
            if !condition.wait(until: deadline) { break }
        }
        return status
    }
}
