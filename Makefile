# The two quickstart commands: `make demo` and `make test`. Each creates .venv when missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/mseval demo --report runs/report

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Two workers (pytest-xdist) on a machine with two or more cores. --dist loadfile keeps each test
# file on one worker, so a module fixture (the benchmark matrix, the Inspector runs, MiniLM, a
# local Ray) is made once; pytest 9 ignores xdist_group marks, which pytest-xdist 3.8 sets in a
# field pytest no longer reads (every such fixture ran on both workers). `pytest -n 0` runs serially.
# The ten slowest tests are listed at the end, to keep an eye on the suite's time.
# The project's bytecode is compiled first: hundreds of tests start `mseval` or a server as a child
# process, and with PYTHONDONTWRITEBYTECODE set (as here) each compiled every module it imported
# afresh (some 0.3 s a start; 14 % of the CLI-heavy test files' time).
test: $(STAMP) lint typecheck
	$(BIN)/python -m compileall -q harness contracts evaluation mcp_servers
	$(BIN)/python -m pytest -n auto --maxprocesses 2 --dist loadfile --durations=10

bench: $(STAMP)
	for b in bench/*.py; do echo "# $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) runs
