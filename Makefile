# corpus_pipeline: the two commands a newcomer needs are `make demo` and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_DIR ?= demo_out
DEMO_PAGES ?= 3000
export SPARK_LOCAL_IP ?= 127.0.0.1
export PYSPARK_PYTHON := $(abspath $(BIN)/python)

.PHONY: setup test test-fast demo bench lint package clean

$(BIN)/corpus-pipeline: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

setup: $(BIN)/corpus-pipeline

test: setup
	$(BIN)/python -m pytest -q -rs

test-fast: setup
	$(BIN)/python -m pytest -q -m "not spark and not cluster and not slow"

demo: setup
	$(BIN)/corpus-pipeline minicrawl --out $(DEMO_DIR)/crawl --pages $(DEMO_PAGES) --random-seed 1
	$(BIN)/corpus-pipeline run --input '$(DEMO_DIR)/crawl/warc/*.warc.gz' --run $(DEMO_DIR)/run \
		--labels $(DEMO_DIR)/crawl/labels.jsonl --benchmarks $(DEMO_DIR)/crawl/benchmarks --annotate auto
	@echo "report: $(DEMO_DIR)/run/report/index.html"

bench: setup
	$(BIN)/python -m bench

lint: setup
	$(BIN)/pip install -q 'ruff>=0.6'
	$(BIN)/ruff check --select E9,F corpus_pipeline jobs tests bench

package: setup
	$(BIN)/python -m corpus_pipeline.packaging --out dist

clean:
	rm -rf $(DEMO_DIR) dist build *.egg-info
