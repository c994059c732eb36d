# Two commands on a fresh machine:
#   make demo   build the course and grade the embedded sample class
#   make test   run every test of the course and of the grader
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test stubs format bench bench-class bench-cluster lab-notebook clean help

help:
	@echo "make demo   - install into $(VENV), build the course and grade the sample class"
	@echo "make test   - install into $(VENV) and run all tests"
	@echo "make stubs  - regenerate exercises/ from solutions/"
	@echo "make format - format the code and sort its imports (ruff; make test checks both)"
	@echo "make bench  - run the benchmarks (prints figures)"
	@echo "make bench-class - grade a synthetic class with grade-class and with plain nbgrader (minutes)"
	@echo "make bench-cluster - grade a synthetic class here and on a local Dask cluster; scale model"
	@echo "make lab-notebook - run the lab notebook on the reference solutions (course-build/lab4_policy_gradients.ipynb)"

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/grader demo

test: $(STAMP)
	$(BIN)/python -m pytest

# Format, sort imports, then regenerate exercises/ (formatted solutions/ change the stubs).
format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
	$(BIN)/grader stubs

stubs: $(STAMP)
	$(BIN)/grader stubs

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_grade.py

bench-class: $(STAMP)
	$(BIN)/python benchmarks/bench_class.py

bench-cluster: $(STAMP)
	$(BIN)/python benchmarks/bench_cluster.py

# Students' default is their own modules (exercises/ here: stubs); this runs the reference.
lab-notebook: $(STAMP)
	mkdir -p course-build
	RL_LLM_M4_CODE=$(CURDIR)/solutions $(BIN)/jupytext --to ipynb --execute \
		--output course-build/lab4_policy_gradients.ipynb notebooks/lab4_policy_gradients.py

clean:
	rm -rf $(VENV) course-build grading-results
