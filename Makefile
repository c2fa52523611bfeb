# Rewind: `make test` installs what is missing, builds and runs every test.
SHELL := /bin/bash
SWIFT ?= swift
APT_PACKAGES := libwebsockets-dev libsqlite3-dev pkg-config tmux
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)

.PHONY: all deps build test python-test python-deps bench clean

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

# The protocol from another language: a Python client against `rewind serve` (needs `websockets`).
python-test: python-deps
	python3 Tests/python/test_protocol.py "$$($(SWIFT) build --show-bin-path)/rewind"

python-deps:
	@python3 -c "import websockets" 2>/dev/null || { \
	  python3 -m pip --version >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-pip; }; \
	  python3 -m pip install --quiet websockets 2>/dev/null || python3 -m pip install --quiet --break-system-packages websockets; }

bench: deps
	$(SWIFT) run -c release rewind-bench

clean:
	rm -rf .build
