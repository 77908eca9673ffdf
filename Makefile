# corpus_pipeline: the two commands a newcomer needs are `make demo` and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_DIR ?= demo_out
DEMO_PAGES ?= 3000
# every test command runs on this many pytest-xdist workers; tests/conftest.py groups the tests (a file, or
# the end-to-end files sharing runs) so that one worker runs a group start to end and its fixtures are
# built once, and lightens the tests' JVMs (client compiler, serial collector, no whole-stage codegen in
# the session's queries): the README's suite budget has the measurements
TEST_WORKERS ?= 2
PYTEST_XDIST = -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder
export SPARK_LOCAL_IP ?= 127.0.0.1
export PYSPARK_PYTHON := $(abspath $(BIN)/python)

.PHONY: setup test test-fast test-not-slow test-spark35 demo bench lint package docs clean

$(BIN)/corpus-pipeline: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

# and the driver JVM's class archive in the user's cache folder (about 90 s, once per JDK and Spark:
# every later command's JVM starts faster; docs/how-it-works.md); a failure there leaves setup good
setup: $(BIN)/corpus-pipeline
	-$(BIN)/corpus-pipeline jvm-cache --if-missing

test: setup
	$(BIN)/python -m pytest -q -rs --durations=30 $(PYTEST_XDIST)

test-fast: setup
	$(BIN)/python -m pytest -q $(PYTEST_XDIST) -m "not spark and not cluster and not slow"

# the inner loop with Spark: every test without the slow marker (CI still runs them all)
test-not-slow: setup
	$(BIN)/python -m pytest -q $(PYTEST_XDIST) -m "not slow"

# Spark 3.5 (EMR 7, Dataproc 2.2): the Spark, end-to-end and cluster tests in a second venv
VENV35 ?= .venv35
$(VENV35)/bin/corpus-pipeline: pyproject.toml
	$(PY) -m venv $(VENV35)
	$(VENV35)/bin/pip install -q --upgrade pip
	$(VENV35)/bin/pip install -q 'pyspark==3.5.*' -e '.[test]'
	touch $@

# (kept lean for CI's time: every Spark test that is not slow-marked, and from the end-to-end loop file
#  the uninterrupted run; its reruns, kill/resume, manual annotation and bad inputs drive the same Spark
#  calls (decontamination's are in the Spark tests) and run on 4.x only)
test-spark35: $(VENV35)/bin/corpus-pipeline
	PYSPARK_PYTHON=$(abspath $(VENV35)/bin/python) $(VENV35)/bin/python -m pytest -q -rs --durations=15 $(PYTEST_XDIST) \
		-m "spark and not slow" tests
	PYSPARK_PYTHON=$(abspath $(VENV35)/bin/python) $(VENV35)/bin/python -m pytest -q -rs --durations=15 tests/e2e/test_loop_e2e.py \
		-k "uninterrupted"

demo: setup
	$(BIN)/corpus-pipeline minicrawl --out $(DEMO_DIR)/crawl --pages $(DEMO_PAGES) --random-seed 1
	$(BIN)/corpus-pipeline run --input '$(DEMO_DIR)/crawl/warc/*.warc.gz' --run $(DEMO_DIR)/run \
		--labels $(DEMO_DIR)/crawl/labels.jsonl --benchmarks $(DEMO_DIR)/crawl/benchmarks --annotate auto

bench: setup
	$(BIN)/python -m bench

lint: setup
	$(BIN)/pip install -q 'ruff>=0.6'
	$(BIN)/ruff check --select E9,F corpus_pipeline jobs tests bench

package: setup
	$(BIN)/python -m corpus_pipeline.packaging --out dist

# the generated blocks of the documentation (docs/configuration.md's reference; corpus_pipeline/docgen.py)
docs: setup
	$(BIN)/python -m corpus_pipeline.docgen

clean:
	rm -rf $(DEMO_DIR) dist build *.egg-info
