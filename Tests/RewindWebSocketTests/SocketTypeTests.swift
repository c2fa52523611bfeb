#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RewindWebSocket
import Testing
import RewindTestSupport

@Suite("SOCK_STREAM on every platform", .ownThreads)
struct SocketTypeTests {
    @Test("Glibc's enum case and Darwin's Int32 macro both give the number socket(2) takes")
    func bothForms() throws {
        // Glibc's form, the one this platform has.
        #expect(SocketType.value(SOCK_STREAM) == 1)
        #expect(SocketType.value(SOCK_DGRAM) == 2)
        // Darwin's form: the macro is a plain Int32 (1, as in <sys/socket.h>).
        let darwinMacro: Int32 = 1
        #expect(SocketType.value(darwinMacro) == 1)
        // The number opens a stream socket here.
        let fd = socket(AF_INET, SocketType.stream, 0)
        #expect(fd >= 0)
        if fd >= 0 {
            var type: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            #expect(getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0)
            #expect(type == SocketType.stream)
            close(fd)
        }
    }
}
