# Rewind: `make test` installs what is missing, builds and runs every test.
SHELL := /bin/bash
SWIFT ?= swift
APT_PACKAGES := libwebsockets-dev libsqlite3-dev pkg-config
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)

.PHONY: all deps build test bench clean

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

bench: deps
	$(SWIFT) run -c release rewind-bench

clean:
	rm -rf .build
