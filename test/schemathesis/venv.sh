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
"$here/../support/python-venv.sh" "${SCHEMATHESIS_VENV:-${TMPDIR:-/tmp}/actorkit-schemathesis-venv}" \
  'import schemathesis' "$here/wheels" \
  --no-deps -r "$here/requirements.txt" harfile hypothesis-graphql starlette-testclient 'schemathesis==4.25.0'
