# The two set-up commands of the README, plus the checks. Each target installs what it needs.
.PHONY: setup demo test lint check

setup:
	bash scripts/bootstrap.sh

demo: setup
	.venv/bin/regintel demo

test: setup
	.venv/bin/ruff check src tests
	.venv/bin/mypy
	.venv/bin/lint-imports
	.venv/bin/python -m pytest

lint: setup
	.venv/bin/ruff check src tests
	.venv/bin/mypy
	.venv/bin/lint-imports
