# Two commands on a fresh machine: `make demo` and `make test`. Each creates or reuses .venv.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: demo test eval bench lint clean venv

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

demo: venv
	$(BIN)/python -m medeventgraph.demo

test: venv fhir-test-server
	$(BIN)/python -m pytest

lint: venv
	$(BIN)/ruff check plugin core fhir_adapters nlp cds_hooks tests

clean:
	rm -rf $(VENV) build *.egg-info
