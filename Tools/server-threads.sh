#!/bin/bash
# Where `rewind serve` spends its CPU, thread by thread, for one out-of-process run.
#
#   Tools/server-threads.sh latency   # one inspector, one app sending 15,000 events at 5,000/s
#   Tools/server-threads.sh bulk      # one app sending 100,000 events as fast as acks allow
#   Tools/server-threads.sh bulk-inspected    # bulk with one inspector watching: the same work as
#                                             # latency, unpaced
#   Tools/server-threads.sh latency action   # the same with the kilobyte in each action
#
# Needs a release build (swift build -c release). Prints the server's CPU per event (utime +
# stime from /proc/PID/stat) and, for each of its threads, the CPU and the voluntary and
# involuntary context switches per event (/proc/PID/task/TID/{stat,status}): a voluntary switch
# is one sleep, so one wake-up. Threads that started during the run are marked "new".
set -euo pipefail
mode=${1:-latency}
shape=${2:-state}
bin=$(cd "$(dirname "$0")/.." && pwd)/.build/release
dir=$(mktemp -d)
server=; inspector=
# Whatever happens (a client that fails, Ctrl-C), no process of the run is left behind.
trap 'kill $server $inspector 2>/dev/null || true; rm -rf "$dir"' EXIT

threads() {  # TID NAME VOLUNTARY INVOLUNTARY TICKS, one line per thread
    for task in /proc/$1/task/*; do
        echo "$(basename "$task") $(tr ' ' _ < "$task/comm")" \
            "$(awk '/^voluntary_ctxt/ {v = $2} /^nonvoluntary_ctxt/ {n = $2} END {print v, n}' "$task/status")" \
            "$(awk '{print $14 + $15}' "$task/stat")"
    done | sort
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

"$bin/rewind" serve --port 0 --db "$dir/bench.db" --web "$dir" > "$dir/serve.out" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "/app" "$dir/serve.out" && break; sleep 0.1; done
port=$(grep -o "ws://127.0.0.1:[0-9]*" "$dir/serve.out" | head -1 | sed 's/.*://')

if [ "$mode" = latency ] || [ "$mode" = bulk-inspected ]; then
    if [ "$mode" = latency ]; then events=15000 rate=5000; else events=100000 rate=0; fi
    "$bin/rewind-bench" --role inspector "$port" $events > "$dir/inspector.out" &
    inspector=$!
    for _ in $(seq 100); do grep -q ready "$dir/inspector.out" && break; sleep 0.1; done
    threads $server > "$dir/before"; t0=$(ticks $server)
    "$bin/rewind-bench" --role app "$port" $events $rate 1 "$shape" > "$dir/app.out"
    wait $inspector
else
    events=100000
    threads $server > "$dir/before"; t0=$(ticks $server)
    "$bin/rewind-bench" --role app "$port" $events 0 0 "$shape" > "$dir/app.out"
fi
t1=$(ticks $server); threads $server > "$dir/after"
hz=$(getconf CLK_TCK)
echo "server CPU per event: $(awk -v a=$t0 -v b=$t1 -v n=$events -v hz=$hz 'BEGIN {printf "%.1f µs", (b - a) / hz / n * 1e6}')"
echo "app: $(cat "$dir/app.out")"
[ "$mode" != bulk ] && echo "inspector: $(tail -1 "$dir/inspector.out")"
join -a2 "$dir/before" "$dir/after" | awk -v n=$events -v hz=$hz '
    NF == 9 { printf "%-8s %-18s %8.1f µs  %6.3f voluntary  %6.3f involuntary per event\n", $1, $2, ($9 - $5) / hz / n * 1e6, ($7 - $3) / n, ($8 - $4) / n }
    NF == 5 { printf "%-8s %-18s %8.1f µs  %6.3f voluntary  %6.3f involuntary per event (new)\n", $1, $2, $5 / hz / n * 1e6, $3 / n, $4 / n }'
