#!/usr/bin/env python3
"""The field soak (issue 37): devices record run after run while servers and the database come and go.

Each device is a real app process (RewindRecorderChild in its `soak` mode: an action every 1-3 ms,
hundreds a run, then `finish`) with a local log of its own (REWIND_OUTBOX), streaming to a list of
servers (REWIND_SERVER). One run in four is killed with SIGKILL mid-run. Meanwhile:

- the team phase: two `rewind serve` instances on one PostgreSQL cluster, each killed with SIGKILL
  and restarted several times, both down at once for a while (runs then exit with the servers
  down), and PostgreSQL itself stopped as by a crash and started again once;
- the file phase: one `rewind serve` on an SQLite log, killed and restarted.

At the end of each phase every server is up and every device runs once more (`final`), delivering
what it kept. Then the soak reads the store back through the `rewind` CLI and checks:

- no app process died of anything but the soak's own SIGKILL;
- every run that ended on its own has all its events on the server, once, in order (seqs 0...N with
  no gap, the last state the sum of 1...N), ended at the time the device recorded (not when it was
  delivered);
- every killed run's session is a gap-free prefix of what it recorded (or absent);
- every session verifies (`rewind verify`); no session is stored twice, none belongs to no run;
- each server's resident memory at the end against its start.

It prints its figures as a table (and with --json one object a line), and exits 1 when a check fails,
naming each failure in one sentence. `make test` runs the short form (about a minute in all);
`--minutes N` runs each phase for N minutes (Docs/Benchmarks.md has the figures of a 10-minute run).

    python3 Tests/soak/field_soak.py [--bin .build/debug] [--minutes N | --seconds S] [--seed N] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Optional

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PG_CLUSTER = os.path.join(ROOT, "scripts", "pg-cluster")
KILL_SHARE = 0.25


def free_port() -> int:
    """A port nothing listens on now, below the ephemeral range's usual start."""
    for _ in range(200):
        port = random.randint(20000, 32000)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise SystemExit("field soak: no free port found on 127.0.0.1")


def rss_kb(pid: int) -> Optional[int]:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Server:
    """One `rewind serve` instance on a fixed port, started again on the same port after each kill."""

    def __init__(self, name: str, rewind: str, db: str, port: int, folder: str):
        self.name, self.rewind, self.db, self.port, self.folder = name, rewind, db, port, folder
        self.process: Optional[subprocess.Popen] = None
        self.incarnation = 0
        self.kills = 0
        self.first_rss: Optional[int] = None
        self.last_rss: Optional[int] = None
        self.peak_rss = 0
        self.lock = threading.Lock()

    @property
    def app_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/app"

    def start(self, deadline_s: float = 60) -> None:
        with self.lock:
            self.incarnation += 1
            log_path = os.path.join(self.folder, f"{self.name}-{self.incarnation}.log")
            log = open(log_path, "wb")
            self.process = subprocess.Popen([self.rewind, "serve", "--port", str(self.port), "--db", self.db],
                                            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            log.close()
            deadline = time.monotonic() + deadline_s
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise SystemExit(f"field soak: {self.name} exited with {self.process.returncode} at start; see {log_path}: {open(log_path).read()[-400:]}")
                with open(log_path, "rb") as text:
                    if b"/app\n" in text.read():
                        break
                time.sleep(0.02)
            else:
                raise SystemExit(f"field soak: {self.name} did not listen on port {self.port} within {deadline_s:.0f} s; see {log_path}")
            rss = rss_kb(self.process.pid)
            if self.first_rss is None:
                self.first_rss = rss
            self.sample()

    def sample(self) -> None:
        if self.process is not None and self.process.poll() is None:
            rss = rss_kb(self.process.pid)
            if rss:
                self.last_rss = rss
                self.peak_rss = max(self.peak_rss, rss)

    def kill(self) -> None:
        with self.lock:
            if self.process is None or self.process.poll() is not None:
                return
            self.sample()
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            self.kills += 1

    def stop(self) -> None:
        with self.lock:
            if self.process is not None and self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                try:
                    self.process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None


@dataclass
class Run:
    device: int
    count: int
    uuid: Optional[str]
    status: int
    killed: bool
    result: Optional[dict]
    stderr: str
    exited_at: float
    final: bool = False

    @property
    def finished(self) -> bool:
        return self.status == 0


@dataclass
class PhaseFigures:
    name: str
    runs: list = field(default_factory=list)
    server_kills: int = 0
    all_down: int = 0
    database_restarts: int = 0
    failures: list = field(default_factory=list)
    figures: dict = field(default_factory=dict)


class Device(threading.Thread):
    """Runs the app again and again until told to stop: one run at a time, as a phone would."""

    def __init__(self, index: int, child: str, environment: dict, stop: threading.Event, rng: random.Random, runs: list, lock: threading.Lock):
        super().__init__(name=f"device-{index}", daemon=True)
        self.index, self.child, self.environment, self.stop_event = index, child, environment, stop
        self.rng, self.runs, self.runs_lock = rng, runs, lock

    def run_once(self, count: int, mode: str, kill_after: Optional[float]) -> Run:
        process = subprocess.Popen([self.child, str(count), mode], env=self.environment, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        sent_kill = threading.Event()

        def kill() -> None:
            if process.poll() is None:
                sent_kill.set()
                process.send_signal(signal.SIGKILL)

        timer = threading.Timer(kill_after, kill) if kill_after is not None else None
        if timer:
            timer.start()
        try:
            out, err = process.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            err += "\n(field soak: the run did not end within 180 s and was killed)"
        if timer:
            timer.cancel()
        exited_at = time.time()
        lines = out.splitlines()
        uuid = lines[0].strip() if lines and len(lines[0].strip()) == 36 else None
        result = None
        for line in lines[1:]:
            try:
                result = json.loads(line)
            except json.JSONDecodeError:
                pass
        killed = process.returncode == -signal.SIGKILL and sent_kill.is_set()
        return Run(self.index, count, uuid, process.returncode, killed, result, err, exited_at, final=(mode == "final"))

    def run(self) -> None:
        while not self.stop_event.is_set():
            count = self.rng.randint(100, 400)
            kill_after = self.rng.uniform(0.05, 0.9) if self.rng.random() < KILL_SHARE else None
            outcome = self.run_once(count, "soak", kill_after)
            with self.runs_lock:
                self.runs.append(outcome)


def cli(rewind: str, *arguments: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([rewind, *arguments], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)


def run_phase(phase: PhaseFigures, servers: list, child: str, rewind: str, db: str, seconds: float, devices: int,
              folder: str, rng: random.Random, pg_dir: Optional[str]) -> None:
    for server in servers:
        server.start()
    runs: list = []
    lock = threading.Lock()
    stop = threading.Event()
    server_list = ",".join(server.app_url for server in servers)
    threads = []
    for index in range(devices):
        environment = dict(os.environ)
        environment.update({"REWIND_SERVER": server_list, "REWIND_TOKEN": "",
                            "REWIND_OUTBOX": os.path.join(folder, f"device-{index}", "outbox"),
                            "REWIND_DB": os.path.join(folder, f"device-{index}", "unused.db")})
        threads.append(Device(index, child, environment, stop, random.Random(rng.random()), runs, lock))
    for thread in threads:
        thread.start()

    # The chaos: each instance killed and restarted about every `period` seconds, in turn; once
    # every instance down at the same time; once (a team store) the database stopped as by a crash.
    started = time.monotonic()
    end = started + seconds
    kills_each = max(2, int(seconds / 12))
    events = []
    for round_index in range(kills_each):
        for index, server in enumerate(servers):
            at = (round_index + (index + 0.5) / len(servers)) / (kills_each + 1) * seconds
            events.append((at, "kill", server))
    events.append((seconds * 0.55, "all-down", None))
    if pg_dir is not None:
        events.append((seconds * 0.8, "database", None))
    events.sort(key=lambda item: item[0])
    for at, kind, server in events:
        wait = started + at - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        for running in servers:
            running.sample()
        if kind == "kill":
            server.kill()
            time.sleep(rng.uniform(0.2, 1.5))
            server.start()
            phase.server_kills += 1
        elif kind == "all-down":
            for running in servers:
                running.kill()
                phase.server_kills += 1
            time.sleep(2.5)
            for running in servers:
                running.start()
            phase.all_down += 1
        else:
            subprocess.run([PG_CLUSTER, "down", pg_dir, "immediate"], check=True, capture_output=True)
            time.sleep(1.5)
            subprocess.run([PG_CLUSTER, "up", pg_dir], check=True, capture_output=True)
            phase.database_restarts += 1
    remaining = end - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)
    stop.set()
    for thread in threads:
        thread.join(timeout=240)
    for server in servers:
        if not server.running:
            server.start()

    # Every device once more, every server up: what each kept is delivered.
    finals = [None] * devices

    def final(index: int) -> None:
        finals[index] = threads[index].run_once(30, "final", None)

    with ThreadPoolExecutor(max_workers=devices) as pool:
        list(pool.map(final, range(devices)))
    runs.extend(finals)
    for server in servers:
        server.sample()
    phase.runs = runs
    check_phase(phase, servers, rewind, db)
    for server in servers:
        server.stop()


def check_phase(phase: PhaseFigures, servers: list, rewind: str, db: str) -> None:
    failures = phase.failures
    listed = cli(rewind, "sessions", "--json", "--db", db)
    if listed.returncode != 0:
        failures.append(f"rewind sessions failed on {phase.name}'s store: {listed.stderr.strip()}")
        return
    rows = [json.loads(line) for line in listed.stdout.splitlines() if line.strip()]
    by_uuid: dict = {}
    for row in rows:
        by_uuid.setdefault(row["uuid"], []).append(row)
    twice = [uuid for uuid, found in by_uuid.items() if len(found) > 1]
    for uuid in twice:
        failures.append(f"session {uuid} is stored {len(by_uuid[uuid])} times")
    verified = cli(rewind, "verify", "--json", "--db", db, timeout=600)
    verify_lines = [json.loads(line) for line in verified.stdout.splitlines() if line.strip()]
    not_ok = [line for line in verify_lines if not line.get("ok")]
    for line in not_ok:
        failures.append(f"session {line.get('uuid')} does not verify: {line.get('problem')}")
    if verified.returncode != 0 and not not_ok:
        failures.append(f"rewind verify failed: {verified.stderr.strip()}")

    runs = phase.runs
    crashes = [run for run in runs if not run.finished and not run.killed]
    for run in crashes:
        failures.append(f"device {run.device}'s run {run.uuid or '(no session printed)'} ended with status {run.status}: {run.stderr.strip()[-300:]}")
    known = {run.uuid for run in runs if run.uuid}
    for uuid in by_uuid:
        if uuid not in known:
            failures.append(f"session {uuid} on the server belongs to no run of the soak")

    # The last state of every stored session, read back: the sum of 1...lastSeq says every action
    # is there in order.
    def total(uuid: str, last: int) -> Optional[int]:
        printed = cli(rewind, "state", f"{uuid}@{last}", "--path", "/total", "--db", db)
        return int(printed.stdout.strip()) if printed.returncode == 0 else None

    stored_rows = [rows_[0] for rows_ in by_uuid.values()]
    with ThreadPoolExecutor(max_workers=4) as pool:
        totals = dict(zip([row["uuid"] for row in stored_rows],
                          pool.map(lambda row: total(row["uuid"], row["lastSeq"]) if row.get("lastSeq") is not None else 0, stored_rows)))

    lost = 0
    sent = 0
    prefixes = 0
    late_end = 0
    for run in runs:
        if run.uuid is None:
            if run.finished:
                failures.append(f"device {run.device}'s run printed no session: {run.stderr.strip()[-200:]}")
            continue
        row = by_uuid.get(run.uuid, [None])[0]
        if run.finished:
            sent += run.count + 1
            if row is None:
                lost += run.count + 1
                failures.append(f"device {run.device}'s finished run {run.uuid} ({run.count + 1} events) is not on the server")
                continue
            last, events = row.get("lastSeq"), row.get("events")
            if last != run.count or events != run.count + 1:
                lost += max(0, run.count + 1 - (events or 0))
                failures.append(f"device {run.device}'s finished run {run.uuid} recorded seqs 0...{run.count}; the server holds {events} events through seq {last}")
            elif totals.get(run.uuid) != run.count * (run.count + 1) // 2:
                failures.append(f"device {run.device}'s run {run.uuid}: the last state's total is {totals.get(run.uuid)}, not {run.count * (run.count + 1) // 2}")
            ended = row.get("endedAt")
            if ended is None:
                failures.append(f"device {run.device}'s finished run {run.uuid} is not ended on the server")
            elif ended > run.exited_at + 1.0:
                late_end += 1
                failures.append(f"device {run.device}'s run {run.uuid} ended at {ended:.3f} on the server, after its app exited at {run.exited_at:.3f}: the delivery time, not the device's")
        else:
            if row is None:
                continue
            prefixes += 1
            last, events = row.get("lastSeq"), row.get("events")
            if last is None and not events:
                continue  # killed after its hello, before its first event was stored: an empty prefix
            if last is None or events != last + 1 or last > run.count:
                failures.append(f"device {run.device}'s killed run {run.uuid}: the server holds {events} events through seq {last}, not a gap-free prefix of 0...{run.count}")
            elif totals.get(run.uuid) != last * (last + 1) // 2:
                failures.append(f"device {run.device}'s killed run {run.uuid}: the state at seq {last} has total {totals.get(run.uuid)}, not {last * (last + 1) // 2}")

    stored = sum(row.get("events") or 0 for row in stored_rows)
    phase.figures = {
        "runs": len(runs),
        "runs finished": sum(1 for run in runs if run.finished),
        "runs killed": sum(1 for run in runs if run.killed),
        "runs ended with the servers down": sum(1 for run in runs if run.finished and run.result and run.result.get("delivered") is False),
        "server kills": phase.server_kills,
        "all servers down": phase.all_down,
        "database restarts": phase.database_restarts,
        "events of finished runs": sent,
        "events stored": stored,
        "killed runs stored as prefixes": prefixes,
        "crashes": len(crashes),
        "lost events of finished runs": lost,
        "sessions stored twice": len(twice),
        "sessions verified": sum(1 for line in verify_lines if line.get("ok")),
        "sessions not verified": len(not_ok),
        "late end times": late_end,
    }
    for server in servers:
        phase.figures[f"{server.name} RSS at start (KiB)"] = server.first_rss
        phase.figures[f"{server.name} RSS at end (KiB)"] = server.last_rss
        phase.figures[f"{server.name} restarts"] = server.incarnation - 1
        if server.first_rss and server.last_rss and server.last_rss > 2 * server.first_rss + 100 * 1024:
            failures.append(f"{server.name}'s resident memory grew from {server.first_rss} KiB at start to {server.last_rss} KiB at the end")


def main() -> int:
    parser = argparse.ArgumentParser(description="The field soak: devices recording run after run while servers and the database come and go.")
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"), help="the folder holding rewind and RewindRecorderChild")
    parser.add_argument("--seconds", type=float, default=30, help="how long each phase's chaos lasts (default 30)")
    parser.add_argument("--minutes", type=float, help="the long form: each phase lasts this many minutes")
    parser.add_argument("--devices", type=int, default=4)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--phases", default="team,file", help="team, file or both (team,file)")
    parser.add_argument("--json", action="store_true", help="one JSON object per figure")
    parser.add_argument("--keep", action="store_true", help="keep the soak's folder (kept anyway when a check fails)")
    options = parser.parse_args()
    seconds = options.minutes * 60 if options.minutes else options.seconds
    rewind = os.path.join(options.bin, "rewind")
    child = os.path.join(options.bin, "RewindRecorderChild")
    for program in (rewind, child):
        if not os.access(program, os.X_OK):
            print(f"field soak: {program} is not built; run swift build --build-tests (or pass --bin)", file=sys.stderr)
            return 2
    rng = random.Random(options.seed)
    folder = tempfile.mkdtemp(prefix="rewind-soak-")
    print(f"field soak: seed {options.seed}, {seconds:.0f} s a phase, {options.devices} devices, folder {folder}", file=sys.stderr)
    phases = []
    pg_dir = None
    try:
        if "team" in options.phases:
            # Beside the soak's folder, not in it: PostgreSQL runs as its own user, who cannot
            # enter a folder mkdtemp made for root alone.
            pg_dir = folder + "-pg"
            started = subprocess.run([PG_CLUSTER, "start", pg_dir, "--owner", str(os.getpid())], capture_output=True, text=True)
            if started.returncode != 0:
                print(f"field soak: PostgreSQL did not start: {started.stderr.strip()}", file=sys.stderr)
                return 2
            url = started.stdout.strip().splitlines()[-1]
            team = PhaseFigures("team")
            servers = [Server(name, rewind, url, free_port(), folder) for name in ("team A", "team B")]
            run_phase(team, servers, child, rewind, url, seconds, options.devices, os.path.join(folder, "team"), rng, pg_dir)
            phases.append(team)
            subprocess.run([PG_CLUSTER, "stop", pg_dir], capture_output=True)
            pg_dir = None
        if "file" in options.phases:
            db = os.path.join(folder, "server.db")
            file_phase = PhaseFigures("file")
            servers = [Server("file", rewind, db, free_port(), folder)]
            run_phase(file_phase, servers, child, rewind, db, seconds, options.devices, os.path.join(folder, "file"), rng, None)
            phases.append(file_phase)
    finally:
        if pg_dir is not None:
            subprocess.run([PG_CLUSTER, "stop", pg_dir], capture_output=True)

    failed = [failure for phase in phases for failure in phase.failures]
    for phase in phases:
        if options.json:
            for name, value in phase.figures.items():
                print(json.dumps({"name": f"soak/{phase.name}/{name}", "value": value}))
        else:
            print(f"{phase.name} phase")
            for name, value in phase.figures.items():
                print(f"  {name:<40} {value}")
    for failure in failed[:50]:
        print(f"FAIL: {failure}", file=sys.stderr)
    if len(failed) > 50:
        print(f"FAIL: ... and {len(failed) - 50} more", file=sys.stderr)
    checks = sum(len(phase.runs) for phase in phases)
    if failed:
        print(f"field soak: {len(failed)} problems; the servers' logs and the devices' local logs are in {folder}", file=sys.stderr)
    elif not options.keep:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"field soak: {checks} runs checked, {len(failed)} problems")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
