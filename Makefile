# Rewind: `make test` installs what is missing, builds and runs every test.
SHELL := /bin/bash
SWIFT ?= swift
APT_PACKAGES := libwebsockets-dev libsqlite3-dev pkg-config tmux
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)

.PHONY: all deps build test python-test python-deps browser-test browser-deps bench clean run

all: build

# Installs the system packages that are missing (apt-get; sudo only when not root).
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-xctest
	$(MAKE) --no-print-directory python-test
	$(MAKE) --no-print-directory browser-test

# The protocol from another language: a Python client against `rewind serve` (needs `websockets`).
python-test: python-deps
	python3 Tests/python/test_protocol.py "$$($(SWIFT) build --show-bin-path)/rewind"

python-deps:
	@python3 -c "import websockets" 2>/dev/null || { \
	  python3 -m pip --version >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-pip; }; \
	  python3 -m pip install --quiet websockets 2>/dev/null || python3 -m pip install --quiet --break-system-packages websockets; }

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
	$(SWIFT) build -c release
	REWIND_BIN="$$($(SWIFT) build -c release --show-bin-path)/rewind" PORT=$(PORT) .ci/run-demo.sh $(DEMO_ARGS)

bench: deps
	$(SWIFT) run -c release rewind-bench

clean:
	rm -rf .build
