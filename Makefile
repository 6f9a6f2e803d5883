# Two commands for users: `make run` and `make test`. Everything else is a step of those two.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
ADDR   ?= 127.0.0.1:8000
# `make run` is demo mode: DEBUG on unless you set DEBUG yourself.
RUN_ENV := DEBUG=$${DEBUG:-1}

.PHONY: run test install install-dev translations lint pytest check-python

run: install translations
	$(RUN_ENV) $(PY) manage.py migrate --no-input
	$(RUN_ENV) $(PY) manage.py load_demo
	$(RUN_ENV) $(PY) manage.py rundev $(ADDR)

test: install-dev translations lint pytest

check-python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (found " + sys.version.split()[0] + ")")'

$(PY): | check-python
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

translations: install
	$(PY) scripts/compile_translations.py

lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

# One pytest worker per core, at most four (each has its own test database and browser); PYTEST_WORKERS=0
# runs the suite in this one process.
PYTEST_WORKERS ?= auto
pytest: install-dev
	$(PY) -m pytest -n $(PYTEST_WORKERS) --maxprocesses 4 $(PYTEST_ARGS)
