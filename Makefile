# Two commands: `make run` and `make test`. Each sets up .venv/ on its own, idempotently.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Re-install only when pyproject.toml changes.
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test llm setup tools bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@rm -f $(VENV)/.installed-* && touch $@

setup: $(STAMP)

# docker-compose (Debian's package) only validates the compose file in a test: no engine runs here.
tools:
	@command -v docker-compose >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-compose >/dev/null; }

run: setup
	@mkdir -p var
	$(BIN)/coach run

test: setup tools
	@mkdir -p var
	$(BIN)/python -m pytest -q

# The local OpenAI-compatible vLLM server with the packaged SmolLM2 (first run sets up .venv-vllm/).
llm: setup
	$(BIN)/coach llm serve

# Benchmarks (never part of `make test`). The LLM ones need the local server: run `make llm` first.
LLM_URL ?= http://127.0.0.1:8000/v1
bench: setup
	$(BIN)/python -m bench.retrieval
	$(BIN)/python -m bench.grading --base-url $(LLM_URL) --llm-sample 30 --max-tokens 320
	$(BIN)/python -m bench.serving --base-url $(LLM_URL)
	$(BIN)/python -m bench.bot_load --out docs/bench/bot_load.md
	$(BIN)/python -m bench.collect

clean:
	rm -rf $(VENV) .venv-vllm var
