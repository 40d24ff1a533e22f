# Two commands: `make run` and `make test`. Each sets up .venv/ on its own, idempotently.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Re-install only when pyproject.toml or the pinned versions change.
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)

.PHONY: run test llm setup bench clean train

# Every version is pinned (constraints.txt), so two machines install the same thing.
$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q pip==26.3
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev]'
	@rm -f $(VENV)/.installed-* && touch $@

setup: $(STAMP)

run: setup
	@mkdir -p var
	$(BIN)/coach run

# Needs no root and changes nothing outside the checkout (.ci/run installs system tools).
test: setup
	@mkdir -p var
	$(BIN)/python -m pytest -q

# The local OpenAI-compatible vLLM server with the packaged SmolLM2 (first run sets up .venv-vllm/).
llm: setup
	$(BIN)/coach llm serve

# The key-point model, the injection reader and the fitted numbers, from the committed data (content/judge,
# the blind dev split). About 30 minutes on 2 cores; commit the files only when they change.
train: setup
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev,train]'
	$(BIN)/coach grader train
	$(BIN)/coach grader train-net
	$(BIN)/coach grader fit

# Benchmarks (never part of `make test`). The LLM ones need the local server: run `make llm` first;
# bench.router starts its own two replicas (one core each) and vllm-router (~10-15 min here).
LLM_URL ?= http://127.0.0.1:8000/v1
bench: setup
	$(BIN)/python -m bench.retrieval
	$(BIN)/python -m bench.grading --base-url $(LLM_URL) --llm-sample 30 --max-tokens 320
	$(BIN)/python -m bench.grading_speed
	$(BIN)/python -m bench.serving --base-url $(LLM_URL)
	$(BIN)/python -m bench.router
	$(BIN)/python -m bench.bot_load --users 100 500 --out docs/bench/bot_load.md
	$(BIN)/python -m bench.bot_load --mode closed --users 200 --out docs/bench/bot_capacity.md
	$(BIN)/python -m bench.store --members 1000 --concurrency 32 --out docs/bench/store.md
	$(BIN)/python -m bench.pictures --no-collect
	$(BIN)/python -m bench.speech
	$(BIN)/python -m bench.restart_sweep
	$(BIN)/python -m bench.collect

clean:
	rm -rf $(VENV) .venv-vllm var
