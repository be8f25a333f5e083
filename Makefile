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

CMAKE_STAMP := $(BUILD)/CMakeCache.txt
CTEST := ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

.PHONY: all deps build test regress test-exhaustive coverage prove bench demo gen lint report synth clean help

all: build

help:
	@echo "make demo             generate configs/\$$(CONFIG).json, lint it, run its core in Verilator"
	@echo "make test             model, generator and Verilator tests (CTest)"
	@echo "make regress          the longer configuration sweeps"
	@echo "make test-exhaustive  exhaustive sweeps (all binary16 pairs, ...)"
	@echo "make coverage         line and toggle coverage of the make test runs, per block"
	@echo "make prove            formal proofs with Yosys's SAT solver (docs/formal.md)"
	@echo "make bench            benchmarks, with their figures"
	@echo "make report CONFIG=x  performance report of configs/x.json: build/report/x/report.md"
	@echo "make gen CONFIG=x     write build/x/rtl from configs/x.json"
	@echo "make lint CONFIG=x    verilator --lint-only -Wall on every generated block"
	@echo "make synth CONFIG=x   Yosys area, flip-flops and depth per block, against baselines (docs/synth.md)"
	@echo "make deps             install the missing Debian packages"

deps:
	@tools/deps.sh

$(CMAKE_STAMP): | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null

build: deps $(CMAKE_STAMP)
	cmake --build $(BUILD) -j $(JOBS)

test: build
	$(CTEST) -LE 'regress|exhaustive'

regress: build
	$(CTEST) -L regress

test-exhaustive: build
	$(CTEST) -L exhaustive

coverage: build
	sim/coverage --build $(BUILD)

prove: build
	set -f; tools/prove.sh -j $(JOBS) $(BUILD) $(PROOFS)

bench: build
	@set -e; n=0; for b in $(BUILD)/bench_*; do [ -x "$$b" ] || continue; echo "== $$b"; $$b; n=$$((n+1)); done; \
	  [ $$n -gt 0 ] || { echo "bench: no benchmarks built" >&2; exit 1; }

gen: build
	$(BUILD)/oasis-gen --config configs/$(CONFIG).json --out $(BUILD)/$(CONFIG)/rtl

lint: gen
	tools/lint.sh $(BUILD)/$(CONFIG)/rtl

# One Yosys at a time: build/synth/$(CONFIG)/synth.json and synth.md.
synth: build
	@tools/synth.sh $(BUILD) $(CONFIG)

# The demo builds only what it runs (the generator, the model's command and library, the
# testbench harness).
DEMO_TARGETS := oasis-gen oasis-model oasis_model oasis_tb

demo: deps $(CMAKE_STAMP)
	cmake --build $(BUILD) -j $(JOBS) --target $(DEMO_TARGETS)
	@tools/demo.sh $(BUILD) configs/$(CONFIG).json

report: deps $(CMAKE_STAMP)
	cmake --build $(BUILD) -j $(JOBS) --target oasis-perf
	@tools/report.sh $(BUILD) configs/$(CONFIG).json

clean:
	rm -rf $(BUILD)
