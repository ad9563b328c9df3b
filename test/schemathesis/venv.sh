#!/usr/bin/env bash
# Makes (once) a Python virtual environment with Schemathesis 4.25, an independent property-based
# API tester driven by an OpenAPI document, and prints its bin folder:
#   bin=$(test/schemathesis/venv.sh) && "$bin/schemathesis" run http://127.0.0.1:PORT/openapi.json …
#
# Schemathesis and three of its small pure-Python dependencies are not on this project's Python
# package mirror, so their wheels are kept in wheels/, built without change from their public
# sources; requirements.txt names the rest, which comes from the mirror pip is set up with.
# jsonschema-rs there is 0.58 where schemathesis pins <0.51; every name it uses exists in 0.58,
# hence --no-deps.
# SCHEMATHESIS_VENV sets where the environment goes (default: a folder under the system temp dir).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
venv=${SCHEMATHESIS_VENV:-${TMPDIR:-/tmp}/actorkit-schemathesis-venv}
if [ ! -x "$venv/bin/schemathesis" ] || ! "$venv/bin/schemathesis" --version >/dev/null 2>&1; then
  rm -rf "$venv"
  # Run from / so that no .python-version of the working folder picks the interpreter.
  (cd / && python3 -m venv "$venv") >/dev/null
  "$venv/bin/pip" install -q --disable-pip-version-check --retries 0 --no-deps --find-links "$here/wheels" \
    -r "$here/requirements.txt" harfile hypothesis-graphql starlette-testclient 'schemathesis==4.25.0' \
    >"$venv.install.log" 2>&1 \
    || { echo "schemathesis install failed: $(grep -v Retrying "$venv.install.log" | tail -2)" >&2; exit 1; }
fi
echo "$venv/bin"
