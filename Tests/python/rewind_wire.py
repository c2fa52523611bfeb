"""What the memory measurements share: a WebSocket client for `rewind serve` whose frames are
written by hand (so it can stop reading, or read with a tiny buffer), the stable hash of a
state's bytes, a free port, and a process's memory from /proc."""
import base64
import os
import socket

FNV_OFFSET = 0xcbf29ce484222325
FNV_PRIME = 0x100000001b3


def fnv1a64(data, h=FNV_OFFSET):
    """FNV-1a over `data`, continuing from `h` (the hash of what came before it)."""
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def frame(text):
    """One client text frame. A zero mask leaves the payload as it is, so a large one costs no
    work here."""
    payload = text.encode()
    header = bytearray([0x81])
    n = len(payload)
    if n < 126:
        header.append(0x80 | n)
    elif n < 65536:
        header += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        header += bytes([0x80 | 127]) + n.to_bytes(8, "big")
    return bytes(header) + b"\x00\x00\x00\x00" + payload


def connect(port, path, protocol, rcvbuf=None):
    """A WebSocket connection to 127.0.0.1:`port`, upgraded; a small `rcvbuf` fills up fast."""
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {protocol}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            raise SystemExit("upgrade refused")
        head += chunk
    if b" 101 " not in head.split(b"\r\n")[0]:
        raise SystemExit("upgrade refused: " + head.split(b"\r\n")[0].decode())
    return s


def free_port():
    """A port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def status_kib(pid, field="VmRSS"):
    """A size field of /proc/PID/status (VmRSS, VmHWM…) in KiB; 0 when it is not there."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0
