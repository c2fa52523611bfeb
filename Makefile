# Rewind: `make test` installs what is missing, builds and runs every test.
SHELL := /bin/bash
SWIFT ?= swift
# postgresql: the tests' private cluster (its pg_trgm is in Debian's postgresql-15 itself, with no
# contrib package); libpq-dev: PostgreSQL's client library and headers for the log store; gdb: the
# stacks of a test run that hangs (scripts/with-watchdog).
APT_PACKAGES := libwebsockets-dev libsqlite3-dev pkg-config tmux openssl postgresql libpq-dev gdb
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)

.PHONY: all deps build install uninstall test test-steps apple-check ci-config-check platform-check soak-test soak fuzz fuzz-replay python-test python-deps browser-test browser-deps bench clean run

all: build

# Installs the system packages that are missing (apt-get; sudo only when not root). Where there
# is no dpkg (macOS: `brew install libwebsockets`, Docs/Platforms.md) it does nothing.
deps:
	@command -v dpkg-query >/dev/null 2>&1 || exit 0; \
	missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# SwiftPM runs build-tool plugins when it plans a build, and it plans again only when the package
# or its Swift files change, not web/: removing its build manifests makes it plan (and so run
# Plugins/RewindBuildInfo, which writes the page built into `rewind` when the page changed) on
# each build here, so an edited page is never shipped stale. Nothing else is rebuilt for it.
FRESH_PAGE = rm -f .build/debug.yaml .build/release.yaml .build/fuzz/debug.yaml

build: deps
	$(FRESH_PAGE)
	$(SWIFT) build

# `make install` builds `rewind` (release) and copies it to $(PREFIX)/bin: one binary, the
# inspector page built in. PREFIX=~/.local needs no sudo; for /usr/local the copy runs with sudo
# when the folder is not writable. DESTDIR stages it for a package; REWIND_BIN installs a binary
# already built instead of building one.
PREFIX ?= /usr/local
BINDIR = $(DESTDIR)$(PREFIX)/bin
REWIND_BIN ?=

install:
ifeq ($(REWIND_BIN),)
	@$(MAKE) --no-print-directory deps
	$(FRESH_PAGE)
	$(SWIFT) build -c release --product rewind
endif
	@bin="$(REWIND_BIN)"; [ -n "$$bin" ] || bin="$$($(SWIFT) build -c release --show-bin-path)/rewind"; \
	dest="$(BINDIR)"; run=""; \
	{ mkdir -p "$$dest" 2>/dev/null && [ -w "$$dest" ]; } || run="$(SUDO)"; \
	$$run install -d "$$dest" && $$run install -m 755 "$$bin" "$$dest/rewind" && \
	echo "installed $$dest/rewind: $$("$$dest/rewind" --version)"

uninstall:
	@dest="$(BINDIR)"; run=""; [ -w "$$dest" ] || run="$(SUDO)"; \
	if [ -e "$$dest/rewind" ]; then $$run rm -f "$$dest/rewind" && echo "removed $$dest/rewind"; \
	else echo "no rewind in $$dest"; fi

# The steps run inside one private PostgreSQL cluster in a temporary folder (scripts/with-pg-cluster
# starts it on a free port and stops it when they end, also on failure); they see its URL in
# REWIND_TEST_PG and its folder in REWIND_TEST_PG_DIR.
test: deps
	$(FRESH_PAGE)
	$(SWIFT) build --build-tests
	scripts/with-pg-cluster $(MAKE) --no-print-directory test-steps

# The Swift tests take 6–10 minutes here: one still running after 40 has hung, and the watchdog
# stops it with every thread's stack said (scripts/with-watchdog) rather than leave CI to time out.
SWIFT_TEST_DEADLINE ?= 2400
test-steps:
	scripts/with-watchdog $(SWIFT_TEST_DEADLINE) $(SWIFT) test --skip-build --disable-xctest
	$(MAKE) --no-print-directory apple-check
	$(MAKE) --no-print-directory ci-config-check
	$(MAKE) --no-print-directory platform-check
	$(MAKE) --no-print-directory fuzz-replay
	$(MAKE) --no-print-directory soak-test
	$(MAKE) --no-print-directory python-test
	$(MAKE) --no-print-directory browser-test

# The Apple-only code paths, compiled here: `Rewind` and `RewindRecorder` built as on iOS (no
# libwebsockets; the URLSession transport and the SwiftUI binding compiled) against stand-ins with
# the SDK's declarations, in Swift 6 mode with warnings as errors, then the binding run
# (Tests/AppleStandIns; Docs/Platforms.md says what only a Mac can check).
apple-check:
	REWIND_APPLE_SHAPES=1 $(SWIFT) build --scratch-path .build-apple --product AppleShapesCheck -Xswiftc -warnings-as-errors
	.build-apple/debug/AppleShapesCheck

# .github/workflows/ci.yml cannot run here: it is parsed as YAML and its jobs are checked; and the
# watchdog that stops a hung test run is checked to stop one.
ci-config-check: python-deps
	python3 Tests/ci/check_workflow.py .github/workflows/ci.yml
	python3 Tests/ci/test_with_watchdog.py

# Every target builds on a Mac too (CI's macOS job, a user's `make install`): no Glibc-only spelling
# outside a Linux-only #if, in any Swift file (Tests/ci/check_platform_spellings.py), and the
# check's own test.
platform-check:
	python3 Tests/ci/test_check_platform_spellings.py
	python3 Tests/ci/check_platform_spellings.py

# The field soak (Tests/soak/field_soak.py): four devices recording run after run, one run in four
# killed, while two `rewind serve` on one PostgreSQL are killed and restarted and the database is
# restarted once, then the same against one server on an SQLite log. The short form: 20 s a phase.
# `make soak SOAK_MINUTES=10` runs the long form on the release build.
SOAK_MINUTES ?= 10
soak-test:
	python3 Tests/soak/field_soak.py --bin "$$($(SWIFT) build --show-bin-path)" --seconds 20

soak: deps
	$(SWIFT) build -c release --product rewind
	$(SWIFT) build -c release --product RewindRecorderChild
	python3 Tests/soak/field_soak.py --bin "$$($(SWIFT) build -c release --show-bin-path)" --minutes $(SOAK_MINUTES)

# Every input the fuzzer ever crashed on, and every repro of issue 13, through its target again.
fuzz-replay:
	$(SWIFT) build --product rewind-fuzz
	"$$($(SWIFT) build --show-bin-path)/rewind-fuzz" replay Tests/fuzz

# libFuzzer with AddressSanitizer on each target for FUZZ_SECONDS (default 60), starting from the
# kept corpus. A crash stops it: the input is in .build/fuzz/crashes/TARGET/; fix the bug, then
# add the input to Tests/fuzz/TARGET/ so `make test` replays it.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= json patch number server client
fuzz: deps
	$(SWIFT) build --product rewind-fuzz --build-path .build/fuzz -Xswiftc -sanitize=fuzzer,address \
	  -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld 2>&1 | grep -v "Cannot export local symbol"
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p .build/fuzz/corpus/$$t .build/fuzz/crashes/$$t; \
	  echo "fuzzing $$t for $(FUZZ_SECONDS) s"; \
	  .build/fuzz/debug/rewind-fuzz fuzz $$t -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=4096 \
	    -artifact_prefix=.build/fuzz/crashes/$$t/ -print_final_stats=1 .build/fuzz/corpus/$$t Tests/fuzz/$$t 2>&1 \
	    | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)|ERROR|Fatal error|SUMMARY|Test unit written" || true; \
	  if ls .build/fuzz/crashes/$$t/* >/dev/null 2>&1; then echo "fuzz: $$t crashed; inputs in .build/fuzz/crashes/$$t/"; exit 1; fi; \
	done

# The protocol from another language: a Python client against `rewind serve` (needs `websockets`).
python-test: python-deps
	python3 Tests/python/test_protocol.py "$$($(SWIFT) build --show-bin-path)/rewind"
	python3 Tests/python/test_metrics.py "$$($(SWIFT) build --show-bin-path)/rewind"

python-deps:
	@python3 -c "import websockets, yaml, prometheus_client" 2>/dev/null || { \
	  python3 -m pip --version >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-pip; }; \
	  python3 -m pip install --quiet websockets pyyaml prometheus_client 2>/dev/null || python3 -m pip install --quiet --break-system-packages websockets pyyaml prometheus_client; }

# The inspector page in headless Chromium against a real server and app (Tests/browser/).
browser-test: browser-deps python-deps
	python3 Tests/browser/test_inspector.py "$$($(SWIFT) build --show-bin-path)/rewind"

browser-deps:
	@missing=""; for p in chromium chromium-driver; do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@python3 -c "import selenium" 2>/dev/null || { \
	  python3 -m pip --version >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-pip; }; \
	  python3 -m pip install --quiet selenium 2>/dev/null || python3 -m pip install --quiet --break-system-packages selenium; }

# The sample apps streaming to a local server: `make run` (PORT=0 picks a free port; DEMO_ARGS go
# to `rewind demo`, e.g. DEMO_ARGS="--rate 20"). Ctrl-C stops the demo, then the server.
PORT ?= 7433
run: deps
	$(FRESH_PAGE)
	$(SWIFT) build -c release
	REWIND_BIN="$$($(SWIFT) build -c release --show-bin-path)/rewind" PORT=$(PORT) .ci/run-demo.sh $(DEMO_ARGS)

bench: deps
	$(SWIFT) run -c release rewind-bench

clean:
	rm -rf .build
