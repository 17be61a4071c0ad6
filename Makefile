# tabletrack - the two set-up commands of the README:
#   make demo   install what is missing, build, run the pipeline on the bundled sample
#   make test   install what is missing, build with AddressSanitizer + UBSan, run every test
# Other targets: make build (release build), make bench (benchmarks), make deps,
#   make fuzz   (clang) fuzz every parser for FUZZ_SECONDS each (default 60).

JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
BUILD   ?= build
TBUILD  ?= build-test
CMAKE   ?= cmake

# Debian packages the project needs (build, tests, demo); universal-ctags: the
# house test measures every function's length with it; libx11-dev: a
# projector's window is put on the X screen its --window names.
APT_PACKAGES = build-essential cmake pkg-config \
  libapriltag-dev libopencv-dev libjansson-dev libcairo2-dev libsdl2-dev libx11-dev \
  libsqlite3-dev libusb-1.0-0-dev libuvc-dev libcmocka-dev \
  libmicrohttpd-dev libqrencode-dev liblo-dev liblo-tools python3-liblo \
  fonts-dejavu-core xvfb x11-apps xdotool poppler-utils sqlite3 chromium python3 clang zbar-tools \
  mosquitto libmosquitto-dev openssl universal-ctags

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

FBUILD  ?= build-fuzz
FUZZ_SECONDS ?= 60
# Sanitizer settings of every test run: any ASan, UBSan or leak report fails.
SAN_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp

.PHONY: all deps build test demo bench fuzz fuzz-build clean

all: build

# Install missing packages only (quick when everything is there).
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	else echo "All Debian packages present."; fi
	@command -v node >/dev/null && command -v npm >/dev/null || { \
	  echo "Installing Node.js and npm (the browser tests drive Chromium with puppeteer-core)"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm; }
	@# npm packages of the browser tests, from the committed lock file (never a browser download)
	@[ -d tests/http/node_modules/puppeteer-core ] || \
	  (cd tests/http && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund)

build: deps
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	$(CMAKE) --build $(BUILD) -j $(JOBS)

# The test build: AddressSanitizer + UBSan, warnings are errors.
test: deps
	$(CMAKE) -S . -B $(TBUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTT_SANITIZE=ON -DTT_WERROR=ON
	$(CMAKE) --build $(TBUILD) -j $(JOBS)
	cd $(TBUILD) && $(SAN_ENV) ctest --output-on-failure -j $(JOBS) --timeout 1200
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=20

# libFuzzer harnesses (tests/fuzz) built with clang, ASan and UBSan; each
# fuzzes for FUZZ_SECONDS from its committed corpus (tests/fuzz/corpus/).
fuzz-build: deps
	$(CMAKE) -S . -B $(FBUILD) -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTT_SANITIZE=ON -DTT_FUZZ=ON
	$(CMAKE) --build $(FBUILD) -j $(JOBS) --target fuzz_scenario fuzz_query fuzz_rig fuzz_camera_yaml \
	  fuzz_events fuzz_recording

fuzz: fuzz-build
	cd $(FBUILD) && FUZZ_SECONDS=$(FUZZ_SECONDS) $(SAN_ENV) \
	  ctest --output-on-failure -L fuzz -j $(JOBS) --timeout $$(( $(FUZZ_SECONDS) * 3 + 120 ))

demo: build
	./samples/demo.sh $(BUILD)/tabletrack

bench: build
	$(CMAKE) --build $(BUILD) -j $(JOBS) --target benchmarks
	./samples/bench.sh $(BUILD) $(BENCH)

clean:
	rm -rf $(BUILD) $(TBUILD) $(FBUILD)
