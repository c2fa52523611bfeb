"""What the browser tests and the measurement stand on: a real `rewind serve`, a real app
streaming to it (`rewind demo`, or the stand-in while demo is missing), headless Chromium, and a
plain WebSocket inspector to ask the server what the page should show."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from websockets.sync.client import connect

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(REPO, ".build", "browser-test")


def wait_until(predicate, timeout=15, interval=0.05, message="condition"):
    """Polls `predicate` until it returns a truthy value or the deadline passes."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {message}")
        time.sleep(interval)


def import_before_serving(binary, folder, path, app):
    """`rewind import PATH --app APP` into the log `Server` will serve (folder/rewind.db): a log
    takes one writer at a time, so imports happen before the server opens it."""
    result = subprocess.run([binary, "import", path, "--app", app, "--db", os.path.join(folder, "rewind.db")],
                            capture_output=True, timeout=300)
    if result.returncode != 0:
        raise AssertionError(f"rewind import {path} failed: {result.stderr.decode()}")


class Server:
    """`rewind serve` on a free port with a temporary log and the repository's web/ (`web=None`:
    the page built into the binary), in `cwd` with `env` when given."""

    def __init__(self, binary, folder, port=0, extra=(), web=os.path.join(REPO, "web"), cwd=None, env=None):
        self.binary = binary
        self.env = env
        self.db = os.path.join(folder, "rewind.db")
        self.process = subprocess.Popen([binary, "serve", "--port", str(port), "--db", self.db, *(("--web", web) if web else ()), *extra],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd, env=env)
        self.port = None
        self.output = ""
        for line in self.process.stdout:
            self.output += line
            match = re.search(r"wss?://127\.0\.0\.1:(\d+)/app", line)
            if match:
                self.port = int(match.group(1))
                break
        if self.port is None:
            raise RuntimeError("rewind serve did not start")
        self.url = f"{'https' if '--tls-cert' in extra else 'http'}://127.0.0.1:{self.port}/"

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()

    def cli(self, *args):
        """Runs `rewind ARGS --db <the log>`; returns stdout (bytes)."""
        result = subprocess.run([self.binary, *args, "--db", self.db], capture_output=True, timeout=120, env=self.env)
        if result.returncode != 0:
            raise AssertionError(f"rewind {' '.join(args)} failed: {result.stderr.decode()}")
        return result.stdout


def import_file(binary, db, path, app, env=None):
    """`rewind import PATH --app APP --db DB`, before a server opens the log: a log takes one
    writer at a time, and `rewind serve` is one."""
    result = subprocess.run([binary, "import", path, "--app", app, "--db", db], capture_output=True, timeout=300, env=env)
    if result.returncode != 0:
        raise AssertionError(f"rewind import {path} failed: {result.stderr.decode()}")


def demo_available(binary):
    """Whether the binary lists a `demo` subcommand (an unknown one also prints help, exit 0)."""
    listing = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    return re.search(r"^\s+demo\s", listing, re.MULTILINE) is not None


class App:
    """The streaming app: `rewind demo --app images`, or with `standin` the Python stand-in
    (Tests/browser/standin_app.py, same flags), which can stream 1,000 actions a second where the
    demo's scripted users, waiting on their pretend back end, make a few dozen."""

    def __init__(self, binary, server, state_log, rate=20, duration=600, app="images", standin=False):
        self.state_log = state_log
        args = ["--server", f"ws://127.0.0.1:{server.port}/app", "--app", app, "--rate", str(rate), "--state-log", state_log]
        if duration:
            args += ["--duration", str(duration)]   # without it, until SIGTERM
        if not standin:
            if not demo_available(binary):
                raise RuntimeError(f"{binary} has no `demo` subcommand: the browser tests stream `rewind demo`")
            self.kind = "rewind demo"
            command = [binary, "demo", *args]
        else:
            self.kind = "stand-in (Tests/browser/standin_app.py)"
            command = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "standin_app.py"), *args]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def lines(self):
        try:
            with open(self.state_log) as f:
                return [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


class Inspector:
    """A plain `/inspect` client: the server's own answers to compare the page with."""

    def __init__(self, port):
        self.ws = connect(f"ws://127.0.0.1:{port}/inspect", subprotocols=["rewind.inspect.v1"], max_size=None)
        self.next = 1

    def ask(self, **request):
        request["id"] = self.next
        self.next += 1
        self.ws.send(json.dumps(request))
        while True:
            reply = json.loads(self.ws.recv(timeout=30))
            if reply.get("id") == request["id"]:
                if reply.get("type") == "error":
                    raise AssertionError(f"server error: {reply}")
                return reply

    def session(self, app=None, uuid=None):
        for s in sorted(self.ask(type="sessions")["sessions"], key=lambda s: -s["id"]):
            # `rewind demo --app images` names its session "Images demo"; the stand-in "images".
            named = app is None or s["app"] == app or s["app"].lower() == f"{app} demo"
            if named and (uuid is None or s["uuid"] == uuid):
                return s
        return None

    def close(self):
        self.ws.close()


def stream_session(port, app, initial, steps, end=True):
    """Streams a session to the server as an app would (`/app`, hash version 1): seq 0 is
    `initial`, then each step `(action, patch, state, non_finite)` where `non_finite` lists the
    event's `nonFinite` pointers. Waits for the last ack, then ends the session (with `end`).
    Returns the session's uuid."""
    sys.path.insert(0, os.path.join(REPO, "Tests", "python"))
    from test_protocol import stable_hash
    import uuid as uuids
    session = str(uuids.uuid4())
    last = len(steps)
    with connect(f"ws://127.0.0.1:{port}/app", subprotocols=["rewind.app.v1"], max_size=None) as ws:
        ws.send(json.dumps({"type": "hello", "id": 1, "session": session, "app": app}))
        ws.send(json.dumps({"type": "event", "seq": 0, "at": 1763700000.0, "action": {"type": "@@INIT"},
                            "keyframe": initial, "hash": stable_hash(initial), "durationNs": 0}))
        for seq, (action, patch, state, non_finite) in enumerate(steps, 1):
            event = {"type": "event", "seq": seq, "at": 1763700000.0 + seq, "action": action, "patch": patch,
                     "hash": stable_hash(state), "durationNs": 1000}
            if non_finite:
                event["nonFinite"] = non_finite
            ws.send(json.dumps(event))
        deadline = time.monotonic() + 30
        while True:
            message = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if message.get("type") == "error":
                raise AssertionError(f"the server refused the stream: {message}")
            if message.get("type") == "ack" and message.get("seq", -1) >= last:
                break
        if end:
            ws.send(json.dumps({"type": "end", "id": 2}))
    return session


def cart_jsonl(path):
    """A recording in a Codable enum's shape: `{"add":{"productID":N}}` six times, then a
    `{"checkout":{}}`: rows of one type that only their payloads tell apart."""
    state = {"cart": [], "total": 0}
    with open(path, "w") as f:
        f.write(json.dumps({"state": state, "at": 1763700000.0}, separators=(",", ":")) + "\n")
        for i, product in enumerate([3, 17, 4, 8, 3, 42], 1):
            state["cart"].append(product)
            state["total"] += product
            f.write(json.dumps({"action": {"add": {"productID": product}}, "state": state, "at": 1763700000.0 + i}, separators=(",", ":")) + "\n")
        f.write(json.dumps({"action": {"checkout": {}}, "state": {"cart": [], "total": 0}, "at": 1763700010.0}, separators=(",", ":")) + "\n")


def gallery_jsonl(path, count):
    """A JSONL recording of `count` events (plus seq 0) to import: small states, varied types."""
    state = {"images": [], "likes": 0, "filter": "all"}
    with open(path, "w") as f:
        f.write(json.dumps({"state": state, "at": 1763700000.0}, separators=(",", ":")) + "\n")
        for i in range(1, count + 1):
            kind = ("images/add", "images/like", "filter/set", "user/login")[i % 4]
            if kind == "images/add":
                state["images"].append({"id": i, "title": f"photo {i}"})
                if len(state["images"]) > 8:
                    state["images"].pop(0)
                action = {"type": kind, "id": i, "title": f"photo {i}"}
            elif kind == "images/like":
                state["likes"] += 1
                action = {"type": kind, "id": i}
            elif kind == "filter/set":
                state["filter"] = ("all", "liked", "recent")[i % 3]
                action = {"type": kind, "filter": state["filter"]}
            else:
                action = {"type": kind, "user": f"user{i % 50}"}
                state["user"] = action["user"]
            f.write(json.dumps({"action": action, "state": state, "at": 1763700000.0 + i / 1000}, separators=(",", ":")) + "\n")


def proto_jsonl(path):
    """A recording whose states add, change and remove keys that are special in JavaScript
    (`__proto__`, `constructor`, `hasOwnProperty`): plain data to the server, a trap for `obj[key]`."""
    states = [
        {"a": 1},
        {"a": 1, "__proto__": {"x": 1}},
        {"a": 1, "__proto__": {"x": 2, "polluted": True}},
        {"a": 1, "__proto__": {"x": 2, "polluted": True}, "constructor": {"prototype": {"y": 1}}},
        {"a": 1, "__proto__": 5, "constructor": {"prototype": {"y": 2}}},
        {"a": 1, "constructor": {"prototype": {"y": 2}}},
        {"a": 1, "constructor": {"prototype": {"y": 2}}, "hasOwnProperty": 3, "__proto__": [1, {"__proto__": None}]},
        {"a": 2},
    ]
    with open(path, "w") as f:
        f.write(json.dumps({"state": states[0], "at": 1763700000.0}, separators=(",", ":")) + "\n")
        for i, state in enumerate(states[1:], 1):
            f.write(json.dumps({"action": {"type": f"proto/step{i}"}, "state": state, "at": 1763700000.0 + i}, separators=(",", ":")) + "\n")
    return len(states) - 1


# The shared test data, read where it is (never copied into the repository).
CATALOG_PLACES = [os.path.join(REPO, "..", "shared", "testdata", "json-corpus", "citm_catalog.json"),
                  os.path.join(REPO, "..", "..", "shared", "testdata", "json-corpus", "citm_catalog.json"),
                  "/work/shared/testdata/json-corpus/citm_catalog.json"]


def catalog_jsonl(folder):
    """Two states of a 1.7 MB document (the shared test data's citm_catalog.json), or None when
    the test data is not there."""
    source = next((p for p in CATALOG_PLACES if os.path.exists(p)), None)
    if source is None:
        return None
    with open(source) as f:
        catalog = json.load(f)
    path = os.path.join(folder, "catalog.jsonl")
    with open(path, "w") as f:
        f.write(json.dumps({"state": catalog, "at": 1763700000.0}) + "\n")
        catalog["areaNames"]["205705993"] = "Arrière-scène central (renamed)"
        f.write(json.dumps({"action": {"type": "area/rename", "id": "205705993"}, "state": catalog, "at": 1763700001.0}) + "\n")
    return path


def browser(download_dir=None, size=(1400, 900), insecure=False):
    """Headless Chromium through Debian's chromedriver (no driver download); `insecure` takes a
    certificate no CA of the system signed (a test's throwaway CA)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    os.environ.setdefault("SE_AVOID_STATS", "true")
    options = Options()
    for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"):
        if os.path.exists(candidate):
            options.binary_location = candidate
            break
    options.add_argument("--headless=new")
    options.add_argument("--no-sandbox")
    options.add_argument("--disable-dev-shm-usage")
    options.add_argument("--enable-precise-memory-info")
    if insecure:
        options.add_argument("--ignore-certificate-errors")
    options.add_argument(f"--window-size={size[0]},{size[1]}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if download_dir:
        options.add_experimental_option("prefs", {"download.default_directory": download_dir,
                                                  "download.prompt_for_download": False})
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    # The window size includes no browser chrome in headless mode; make the page exactly `size`.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False})
    if download_dir:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": download_dir})
    return driver


def new_folder():
    return tempfile.mkdtemp(prefix="rewind-browser-")


def stop_all(*parts):
    """Calls each stop that is there, whatever the others do."""
    for part in parts:
        if part:
            try:
                part()
            except Exception:
                pass


def remove_folder(folder, keep=False):
    """Removes a run's folder (its logs, imports and installed binary, ~130 MB), unless it is
    kept to look into a failure (`keep`, or REWIND_KEEP_TEMP=1)."""
    if keep or os.environ.get("REWIND_KEEP_TEMP"):
        print(f"kept {folder}", flush=True)
    else:
        shutil.rmtree(folder, ignore_errors=True)
