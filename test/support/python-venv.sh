#!/usr/bin/env bash
# Makes (once) a Python virtual environment for a tool the tests drive, from wheels kept in the
# repository and the Python package mirror pip is set up with, and prints its bin folder:
#   test/support/python-venv.sh <venv dir> <ready check> <wheels dir> <pip install arguments…>
# <ready check> is Python code that runs without error once the tool is installed; while it does,
# the environment is kept. Each tool's venv.sh (test/a2a-python, test/schemathesis) calls this
# with its own facts. `--retries 0` keeps pip from waiting on an index it cannot reach.
set -eu
venv=$1 ready=$2 wheels=$3
shift 3
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "$ready" 2>/dev/null; then
  rm -rf "$venv"
  # Run from / so that no .python-version of the working folder picks the interpreter.
  (cd / && python3 -m venv "$venv") >/dev/null
  "$venv/bin/pip" install -q --disable-pip-version-check --retries 0 --find-links "$wheels" "$@" \
    >"$venv.install.log" 2>&1 \
    || { echo "$(basename "$venv") install failed: $(grep -v Retrying "$venv.install.log" | tail -2)" >&2; exit 1; }
fi
echo "$venv/bin"
