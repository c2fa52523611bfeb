#!/usr/bin/env python3
"""Finds Glibc-only spellings outside a platform guard, in every Swift file of every target.

`make apple-check` compiles two targets as on iOS; the rest (the CLI, the server, the benchmarks,
the tests) are built on a Mac only by CI's macOS job and by a user's `make install`. This check
reads every `.swift` file under Sources/ and Tests/ (but the Apple stand-ins) and fails on a
spelling that compiles on Linux alone, or reads Linux's /proc with no way out, unless it sits in
a branch of `#if` that only Linux takes (`os(Linux)`, `canImport(Glibc)`, `canImport(Musl)`,
`!canImport(Darwin)`, or the `#else` of `canImport(Darwin)` / `os(macOS)`-style conditions).

    python3 Tests/ci/check_platform_spellings.py [ROOT]

Each finding is one line, `path:line: what, and what to write instead`; exit 1 when there is one.
"""
import os
import re
import sys

# (pattern, what it is and what works on both). Checked on code with comments and strings removed,
# but for /proc, which is a string.
SPELLINGS = [
    (re.compile(r"\bSOCK_(STREAM|DGRAM|RAW|SEQPACKET)\.rawValue\b"),
     "SOCK_*.rawValue exists in Glibc only (an enum there, an Int32 on Darwin); write Int32(SOCK_STREAM) on Darwin, behind #if os(Linux)"),
    (re.compile(r"\bMSG_NOSIGNAL\b"), "MSG_NOSIGNAL is Linux's; Darwin sets SO_NOSIGPIPE on the socket instead"),
    (re.compile(r"\bprctl\s*\("), "prctl is Linux's"),
    (re.compile(r"\bst_mtim\b"), "st_mtim is Glibc's; Darwin calls it st_mtimespec"),
    (re.compile(r"\bst_atim\b|\bst_ctim\b"), "st_atim/st_ctim are Glibc's; Darwin calls them st_atimespec/st_ctimespec"),
    (re.compile(r"\b(epoll_\w+|eventfd|signalfd|inotify_\w+|memfd_create|accept4|pipe2|dup3|malloc_trim|mallinfo2?|sched_getaffinity|sysinfo)\s*\("),
     "a Linux-only call"),
    (re.compile(r"\bSOCK_(CLOEXEC|NONBLOCK)\b"), "SOCK_CLOEXEC/SOCK_NONBLOCK are Linux's socket flags; set O_CLOEXEC/O_NONBLOCK with fcntl"),
    (re.compile(r"\bO_(PATH|TMPFILE|DIRECT|NOATIME)\b"), "a Linux-only open flag"),
    (re.compile(r"\bTCP_(USER_TIMEOUT|KEEPIDLE|QUICKACK|CORK)\b"), "a Linux-only TCP option (Darwin: TCP_KEEPALIVE for the idle time)"),
]
# pthread_setname_np takes (thread, name) on Linux and (name) on Darwin.
SETNAME = re.compile(r"\bpthread_setname_np\s*\(([^()]*(\([^()]*\))?[^()]*)\)")
PROC = re.compile(r"\"/proc(/|\")")
# A /proc read with a way out on the same line: an optional try, a nil check, a default.
PROC_FALLBACK = re.compile(r"try\?|\?\?|\bguard\b|\bif let\b|\bif var\b|== nil|!= nil|\bopendir\(")

LINUX_ONLY = re.compile(r"^\s*(os\(Linux\)|canImport\(Glibc\)|canImport\(Musl\)|!\s*canImport\(Darwin\)|!\s*os\(macOS\)\s*&&\s*!\s*os\(iOS\).*)\s*$")
# Conditions only Apple platforms take: their #else is Linux's.
APPLE_ONLY = re.compile(r"^\s*(canImport\(Darwin\)|os\(macOS\)(\s*\|\|\s*os\(iOS\))?.*|os\(iOS\)|canImport\(ObjectiveC\))\s*$")


def strip_comments_and_strings(line, in_block):
    """The code of `line` without comments and string literals' contents; and whether a block
    comment is still open at its end."""
    out = []
    i = 0
    in_string = False
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i = end + 2
            in_block = False
            continue
        c = line[i]
        if in_string:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_string = False
                out.append('"')
            i += 1
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            in_block = True
            i += 2
            continue
        if c == '"':
            in_string = True
            out.append('"')
        else:
            out.append(c)
        i += 1
    return "".join(out), in_block


def check_file(path, relative):
    findings = []
    # Each open #if: [condition of the taken branch is Linux-only, any earlier branch Apple-only].
    stack = []
    in_block = False
    glibc_imports = []  # (line number, frame) of `import Glibc`
    with open(path, encoding="utf-8", errors="replace") as source:
        lines = source.readlines()
    for number, raw in enumerate(lines, 1):
        stripped = raw.strip()
        directive = re.match(r"#(if|elseif|else|endif)\b(.*)", stripped)
        if directive and not in_block:
            kind, condition = directive.group(1), directive.group(2).split("//")[0].strip()
            if kind == "if":
                stack.append({"linux": bool(LINUX_ONLY.match(condition)), "apple_before": bool(APPLE_ONLY.match(condition)),
                              "has_darwin_branch": bool(APPLE_ONLY.match(condition)), "line": number})
            elif kind == "elseif" and stack:
                frame = stack[-1]
                frame["linux"] = bool(LINUX_ONLY.match(condition))
                if APPLE_ONLY.match(condition):
                    frame["apple_before"] = True
                    frame["has_darwin_branch"] = True
            elif kind == "else" and stack:
                frame = stack[-1]
                frame["linux"] = frame["apple_before"]
                frame["has_darwin_branch"] = frame["has_darwin_branch"] or not frame["apple_before"]
            elif kind == "endif" and stack:
                stack.pop()
            continue
        guarded = any(frame["linux"] for frame in stack)
        code, in_block = strip_comments_and_strings(raw, in_block)
        if re.match(r"\s*import\s+Glibc\b", code):
            glibc_imports.append((number, guarded, stack[-1] if stack else None))
            continue
        if guarded:
            continue
        for pattern, why in SPELLINGS:
            if pattern.search(code):
                findings.append(f"{relative}:{number}: {pattern.search(code).group(0).strip()}: {why}, outside a Linux-only #if")
        for match in SETNAME.finditer(code):
            if "," in match.group(1):
                findings.append(f"{relative}:{number}: pthread_setname_np with two arguments is Linux's (Darwin names only the calling thread: pthread_setname_np(name)), outside a Linux-only #if")
        if PROC.search(raw) and not PROC_FALLBACK.search(raw):
            findings.append(f"{relative}:{number}: a /proc read with no way out on this line (try?, ??, guard, if let): Darwin has no /proc; guard it with #if os(Linux) or let it fail softly")
    imports_foundation = any(re.match(r"\s*(@\w+\s+)*import\s+Foundation\b", line) for line in lines)
    for number, guarded, frame in glibc_imports:
        if not guarded:
            findings.append(f"{relative}:{number}: import Glibc outside #if canImport(Glibc) (or os(Linux)): Darwin has no Glibc module")
        elif not frame["has_darwin_branch"] and not imports_foundation:
            findings.append(f"{relative}:{number}: import Glibc with neither an #elseif canImport(Darwin) import Darwin beside it (the #if at line {frame['line']}) nor Foundation, which brings Darwin")
    return findings


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    findings = []
    checked = 0
    for top in ("Sources", "Tests"):
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if not (top == "Tests" and d == "AppleStandIns"))
            for name in sorted(files):
                if name.endswith(".swift"):
                    path = os.path.join(folder, name)
                    checked += 1
                    findings += check_file(path, os.path.relpath(path, root))
    for finding in findings:
        print(finding)
    print(f"platform spellings: {checked} Swift files checked, {len(findings)} Glibc-only spellings outside a guard")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
