# Thin wrapper over meson. `make run` starts cubed on http://127.0.0.1:8080;
# `make test` builds everything and runs the whole suite.
#
# `make run` builds only what runs (the `runtime` target: cubed, the
# plugins, cubectl; and the console). A build dir it sets up itself has the
# test suite off (-Dtests=false), so it needs the run packages alone
# (scripts/install-deps.sh run); `make test` turns the suite on in the same
# dir (scripts/run-tests.sh), and `make run` leaves a dir's options as they
# are. Separate dirs work too: `make run BUILD=build-run` (cubed is then
# told its plugin dir, which cube.yaml names as build/plugins).
# SETUP_ARGS: more `meson setup` options for a dir `make run` sets up.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz

# `make run` and `make test` also build the web console into web/dist
# (scripts/build-web.sh; skipped while web/dist is newer than its sources).
.PHONY: run build web test test-asan fuzz bench deps clean

deps:
	@scripts/install-deps.sh run

$(BUILD)/build.ninja:
	meson setup $(BUILD) -Dtests=false $(SETUP_ARGS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD) runtime

web:
	@scripts/build-web.sh

run: build web
	mkdir -p var
	exec $(if $(filter-out build,$(BUILD)),env CUBE_PLUGIN_DIR=$(BUILD)/plugins) \
	  $(BUILD)/core/cubed -c cube.yaml

test:
	@scripts/install-deps.sh test
	@scripts/build-web.sh
	@scripts/run-tests.sh $(BUILD)

# The same suite with AddressSanitizer and UndefinedBehaviorSanitizer (less
# the tests in which no C code runs: suite js-only).
test-asan:
	@scripts/install-deps.sh test
	@TEST_NO_SUITES=js-only ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  scripts/run-tests.sh $(ASAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false

# Runs every libFuzzer target briefly over its committed seed corpus.
fuzz:
	@scripts/install-deps.sh all
	@scripts/fuzz.sh $(FUZZ_BUILD) $${FUZZ_SECONDS:-20}

bench:
	@scripts/install-deps.sh all
	bash tests/bench/http.sh
	bash tests/bench/resources.sh
	bash tests/bench/auth.sh
	bash tests/bench/sched.sh
	bash tests/bench/local_vs_slurm.sh
	bash tests/bench/cube_on_slurm.sh
	bash tests/bench/proxy.sh
	bash tests/bench/serving.sh
	bash tests/bench/notebook.sh
	bash tests/bench/pipeline.sh
	bash tests/bench/sdk.sh

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
