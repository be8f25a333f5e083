# SPDX-License-Identifier: Apache-2.0
# OASIS generator: build, test and demo. See README.md.
CONFIG ?= default
BUILD  ?= build
JOBS   ?= $(shell nproc)
SEED   ?= 1
export SEED
# CMake's own makes run under this one: without this, each prints every folder it enters.
MAKEFLAGS += --no-print-directory
# make prove PROOFS='orizuru.*': only the proofs whose names match these shell patterns
PROOFS ?=
# make test SHARD=i/n (also regress, test-exhaustive): only the i-th of every n tests
# (CTest's -I i,,n), so that n machines share one run; every test is in exactly one shard.
SHARD ?=

# The build folder may lie anywhere, its path may hold spaces (docs/paths.md):
# BUILD_Q is it as one word of a shell command, and in the name of a make target a
# space is escaped.
empty :=
space := $(empty) $(empty)
BUILD_Q := '$(subst ','\'',$(BUILD))'

# $(call check_config,TARGET): stop with status 2 unless configs/$(CONFIG).json exists.
check_config = if [ ! -f configs/$(CONFIG).json ]; then \
	  echo "$(1): no config '$(CONFIG)' (configs/$(CONFIG).json); CONFIG must be one of: $$(ls configs/*.json | sed 's|configs/||; s|\.json||' | tr '\n' ' ' | sed 's/ $$//')" >&2; \
	  exit 2; fi
CMAKE_STAMP := $(subst $(space),\$(space),$(BUILD))/CMakeCache.txt
CTEST := ctest --test-dir $(BUILD_Q) --output-on-failure -j $(JOBS)
ifneq ($(SHARD),)
  SHARD_I := $(word 1,$(subst /, ,$(SHARD)))
  SHARD_N := $(word 2,$(subst /, ,$(SHARD)))
  ifeq ($(shell echo '$(SHARD)' | grep -Ex '[1-9][0-9]*/[1-9][0-9]*' >/dev/null && \
                [ $(SHARD_I) -le $(SHARD_N) ] && echo ok),)
    $(error SHARD=$(SHARD): expected i/n, whole numbers with 1 <= i <= n, e.g. SHARD=2/4)
  endif
  CTEST += -I $(SHARD_I),,$(SHARD_N)
endif

.PHONY: all deps build test regress test-exhaustive test-sanitize fuzz coverage prove bench demo gen lint report synth ppa results clean help

all: build

help:
	@echo "make demo             generate configs/\$$(CONFIG).json, lint it, run its core in Verilator"
	@echo "make test             model, generator and Verilator tests (CTest; SHARD=i/n: every n-th)"
	@echo "make regress          the longer configuration sweeps"
	@echo "make test-exhaustive  exhaustive sweeps (all binary16 pairs, ...)"
	@echo "make test-sanitize    unit tests and fuzz corpora with AddressSanitizer and UBSan (docs/fuzzing.md)"
	@echo "make fuzz             fuzz every reader of outside input for FUZZ_SECONDS in all (docs/fuzzing.md)"
	@echo "make coverage         line and toggle coverage of the make test runs, per block"
	@echo "make prove            formal proofs with Yosys's SAT solver (docs/formal.md)"
	@echo "make bench            benchmarks, with their figures"
	@echo "make report CONFIG=x  performance report of configs/x.json: build/report/x/report.md"
	@echo "make gen CONFIG=x     write build/x/rtl from configs/x.json"
	@echo "make lint CONFIG=x    verilator --lint-only -Wall on every generated block"
	@echo "make synth CONFIG=x   Yosys area, flip-flops and depth per block, against baselines (docs/synth.md)"
	@echo "make ppa CONFIG=x     area, timing and power in the osu018 cell library, Table II side by side (docs/ppa.md);"
	@echo "                      ACTIVITY=sim: power from the workload's switching activity too"
	@echo "make results          docs/results.md, the headline figures, from the build's three-ways runs"
	@echo "make deps             install the missing Debian packages"

deps:
	@tools/deps.sh

# Ninja rather than CMake's makefiles: on two cores it keeps both busy where make leaves one
# waiting at each library's end (a clean build took 189 s with make, 147 s with Ninja). A build
# folder configured before keeps the generator it has.
$(CMAKE_STAMP): | deps
	cmake -S . -B $(BUILD_Q) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null

build: deps $(CMAKE_STAMP)
	cmake --build $(BUILD_Q) -j $(JOBS)

test: build
	$(CTEST) -LE 'regress|exhaustive'

regress: build
	$(CTEST) -L regress

test-exhaustive: build
	cmake --build $(BUILD_Q) -j $(JOBS) --target oasis_exhaustive
	$(CTEST) -L exhaustive

# The unit tests and the fuzz corpora built with AddressSanitizer and UndefinedBehaviorSanitizer
# (g++), in a build folder of their own: $(BUILD)/sanitize (docs/fuzzing.md).
test-sanitize: deps
	tools/sanitize.sh --build $(BUILD_Q)/sanitize --jobs $(JOBS)

# libFuzzer on every reader of outside input, FUZZ_SECONDS in all split over FUZZ_TARGETS (all
# by default), built with clang in $(BUILD)/fuzzing (docs/fuzzing.md; the clang packages are
# installed by tools/deps.sh fuzz).
FUZZ_SECONDS ?= 240
FUZZ_TARGETS ?=
fuzz: deps
	tools/fuzz.sh --build $(BUILD_Q)/fuzzing --seconds $(FUZZ_SECONDS) --jobs $(JOBS) $(FUZZ_TARGETS)

coverage: build
	sim/coverage --build $(BUILD_Q)

prove: build
	set -f; $(BUILD_Q)/oasis-prove --build $(BUILD_Q) -j $(JOBS) $(PROOFS)

bench: build
	cmake --build $(BUILD_Q) -j $(JOBS) --target oasis_bench
	@set -e; n=0; for b in $(BUILD_Q)/bench_*; do [ -x "$$b" ] || continue; echo "== $$b"; "$$b"; n=$$((n+1)); done; \
	  [ $$n -gt 0 ] || { echo "bench: no benchmarks built" >&2; exit 1; }

gen: build
	$(BUILD_Q)/oasis-gen --config configs/$(CONFIG).json --out $(BUILD_Q)/$(CONFIG)/rtl

lint: gen
	OASIS_GEN=$(BUILD_Q)/oasis-gen tools/lint.sh $(BUILD_Q)/$(CONFIG)/rtl

# Generic cells, one Yosys at a time: build/synth/$(CONFIG)/synth.json and synth.md.
# SYNTH_ARGS passes any other option to oasis-synth (docs/synth.md).
SYNTH_ARGS ?=
synth: build
	@$(call check_config,synth)
	$(BUILD_Q)/oasis-synth --build $(BUILD_Q) --config configs/$(CONFIG).json $(SYNTH_ARGS)

# Area, timing and power in a real cell library: build/ppa/$(CONFIG)/ppa.md and ppa.json.
# PERIOD_FO4 is the clock target in FO4 delays (default 130, the paper's 500 MHz at 28 nm);
# ACTIVITY=sim adds every block's power from the switching activity of the golden model's
# workload (vectorless is the default, and stays in the report beside it);
# PPA_ARGS passes any other option to oasis-ppa (docs/ppa.md).
PERIOD_FO4 ?=
ACTIVITY ?= vectorless
PPA_ARGS ?=
ppa: build
	@$(call check_config,ppa)
	@case '$(ACTIVITY)' in vectorless|sim) ;; *) echo "ppa: ACTIVITY=$(ACTIVITY); allowed: vectorless (the default) or sim (the power from the workload's activity as well)" >&2; exit 2;; esac
	$(BUILD_Q)/oasis-ppa --build $(BUILD_Q) --config configs/$(CONFIG).json $(if $(PERIOD_FO4),--period-fo4 $(PERIOD_FO4)) $(if $(filter sim,$(ACTIVITY)),--workload) $(PPA_ARGS)

# The headline figures in one place: docs/results.json and docs/results.md, from the build
# folder's `oasis-ppa --three-ways` tables (make ppa ... PPA_ARGS=--three-ways) and the system
# model (sim/ppa/results.hpp).
results: $(CMAKE_STAMP)
	cmake --build $(BUILD_Q) -j $(JOBS) --target commands
	$(BUILD_Q)/oasis-results --build $(BUILD_Q)

# The demo builds only what it runs: the commands (oasis-gen, oasis-model, and portcheck,
# which sim/vltest calls, are links to one program), the model's library and the testbench
# harness.
DEMO_TARGETS := commands oasis_model oasis_tb

demo: deps $(CMAKE_STAMP)
	cmake --build $(BUILD_Q) -j $(JOBS) --target $(DEMO_TARGETS)
	@tools/demo.sh $(BUILD_Q) configs/$(CONFIG).json

report: deps $(CMAKE_STAMP)
	cmake --build $(BUILD_Q) -j $(JOBS) --target commands
	@tools/report.sh $(BUILD_Q) configs/$(CONFIG).json

clean:
	rm -rf $(BUILD_Q)
