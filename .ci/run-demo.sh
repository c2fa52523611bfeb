#!/usr/bin/env bash
# `make run`: starts `rewind serve` on 127.0.0.1:$PORT (its log in the default place: $REWIND_DB,
# else ~/.local/share/rewind/rewind.db), waits until it listens, streams `rewind demo` to it and
# prints the inspector's address. Ctrl-C (SIGINT) or SIGTERM stops the demo first (it flushes and
# ends its sessions while the server still listens), then the server, and exits 0.
#
#   PORT=0 picks a free port.  REWIND_BIN is the rewind binary (default: the release build).
#   Arguments are passed to `rewind demo` (e.g. --rate 20 --app breweries).
set -uo pipefail
cd "$(dirname "$0")/.."

PORT="${PORT:-7433}"
BIN="${REWIND_BIN:-$(swift build -c release --show-bin-path)/rewind}"
[ -x "$BIN" ] || { echo "run-demo: no rewind binary at $BIN (build it first: swift build -c release)" >&2; exit 1; }

# The children get their own sessions, so a Ctrl-C in the terminal reaches only this script,
# which stops them in order (a demo stopped after its server could not deliver its last events).
detach=()
command -v setsid >/dev/null 2>&1 && detach=(setsid)

serve_out="$(mktemp "${TMPDIR:-/tmp}/rewind-serve.XXXXXX")"
server="" demo=""

stop_child() { # SIGINT, then wait until it has exited (a second Ctrl-C must not cut the wait short)
    local pid="$1" status=0
    [ -n "$pid" ] || return 0
    kill -INT "$pid" 2>/dev/null
    while :; do
        status=0
        wait "$pid" || status=$?
        kill -0 "$pid" 2>/dev/null || break
    done
    return "$status"
}

# From here on, Ctrl-C, SIGTERM and SIGHUP (the terminal closing) only set a flag: the script
# then stops the demo before the server. Whatever way the script ends, no child outlives it.
stopping=0
trap 'stopping=1' INT TERM HUP
cleanup() {
    [ -n "$demo" ] && kill -0 "$demo" 2>/dev/null && stop_child "$demo"
    [ -n "$server" ] && kill -0 "$server" 2>/dev/null && stop_child "$server"
    rm -f "$serve_out"
}
trap cleanup EXIT

"${detach[@]}" "$BIN" serve --host 127.0.0.1 --port "$PORT" >"$serve_out" 2>&1 &
server=$!
echo "run-demo: rewind serve pid $server"

# Wait (up to 30 s) for the server to say where apps connect.
url=""
for _ in $(seq 300); do
    [ "$stopping" = 1 ] && { echo "run-demo: stopped before the server was up" >&2; exit 130; }
    url="$(grep -o 'ws://127\.0\.0\.1:[0-9]*/app' "$serve_out" | head -n 1)"
    [ -n "$url" ] && break
    if ! kill -0 "$server" 2>/dev/null; then
        cat "$serve_out" >&2
        wait "$server"; status=$?
        echo "run-demo: rewind serve did not start (exit $status)" >&2
        exit 1
    fi
    sleep 0.1
done
if [ -z "$url" ]; then
    echo "run-demo: rewind serve did not listen within 30 s" >&2
    stop_child "$server"
    exit 1
fi
cat "$serve_out"
printed="$(wc -l <"$serve_out")"
inspector="$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$serve_out" | head -n 1)"

"${detach[@]}" "$BIN" demo --server "$url" "$@" &
demo=$!
echo "run-demo: rewind demo pid $demo"
echo "run-demo: inspector at $inspector  (Ctrl-C stops the demo and the server)"

# `wait` returns early when a trapped signal arrives; otherwise the demo ended by itself.
demo_status=0
wait "$demo" || demo_status=$?
if [ "$stopping" = 1 ]; then
    demo_status=0
    stop_child "$demo" || demo_status=$?
fi
server_status=0
stop_child "$server" || server_status=$?
tail -n +"$((printed + 1))" "$serve_out"   # what the server said since (its shutdown)
echo "run-demo: stopped (demo exit $demo_status, server exit $server_status)"
[ "$demo_status" = 0 ] && [ "$server_status" = 0 ]
