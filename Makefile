# Thin wrapper over meson. `make run` starts cubed on http://127.0.0.1:8080;
# `make test` builds everything and runs the whole suite.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz

# `make run` and `make test` also build the web console into web/dist
# (scripts/build-web.sh; skipped while web/dist is newer than its sources).
.PHONY: run build web test test-asan fuzz bench deps clean

deps:
	@scripts/install-deps.sh run

$(BUILD)/build.ninja:
	meson setup $(BUILD)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

web:
	@scripts/build-web.sh

run: build web
	mkdir -p var
	exec $(BUILD)/core/cubed -c cube.yaml

test:
	@scripts/install-deps.sh test
	@scripts/build-web.sh
	@scripts/run-tests.sh $(BUILD)

# The same suite with AddressSanitizer and UndefinedBehaviorSanitizer.
test-asan:
	@scripts/install-deps.sh test
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
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
	bash tests/bench/proxy.sh
	bash tests/bench/notebook.sh
	bash tests/bench/pipeline.sh

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
