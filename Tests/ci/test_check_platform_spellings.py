#!/usr/bin/env python3
"""The platform-spelling check finds what it should and leaves guarded code alone."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

BAD = '''import Foundation
import Glibc
let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
_ = send(fd, nil, 0, Int32(MSG_NOSIGNAL))
_ = prctl(15, 0)
pthread_setname_np(pthread_self(), "x")
let t = info.st_mtim
let s = try String(contentsOfFile: "/proc/self/status")
'''
GOOD = '''import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
_ = send(fd, nil, 0, Int32(MSG_NOSIGNAL))
let t = info.st_mtim
#elseif canImport(Darwin)
let fd = socket(AF_INET, SOCK_STREAM, 0)
let t = info.st_mtimespec
#endif
#if canImport(Darwin)
pthread_setname_np("x")
#else
pthread_setname_np(pthread_self(), "x")
#endif
// MSG_NOSIGNAL in a comment, and "prctl(" in a string, are not code.
let words = "prctl(1) SOCK_STREAM.rawValue"
let s = try? String(contentsOfFile: "/proc/self/status")
'''


def run(source):
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "Sources", "T"))
        with open(os.path.join(root, "Sources", "T", "a.swift"), "w") as f:
            f.write(source)
        done = subprocess.run([sys.executable, os.path.join(HERE, "check_platform_spellings.py"), root], capture_output=True, text=True)
        return done.returncode, [line for line in done.stdout.splitlines() if line.startswith("Sources/")]


def main():
    failures = []
    status, found = run(BAD)
    lines = sorted(int(line.split(":")[1]) for line in found)
    if status != 1 or lines != [2, 3, 4, 5, 6, 7, 8]:
        failures.append(f"the unguarded file: status {status}, findings on lines {lines}, expected 1 and [2, 3, 4, 5, 6, 7, 8]: {found}")
    status, found = run(GOOD)
    if status != 0 or found:
        failures.append(f"the guarded file: status {status}, findings {found}")
    for failure in failures:
        print(f"FAIL: {failure}")
    print(f"platform check self-test: {2 - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
