#!/usr/bin/env bash
# Makes (once) a Python virtual environment with the official A2A Python client, `a2a-sdk` 1.1.0,
# and prints its python: py=$(test/a2a-python/venv.sh) && "$py" test/a2a-python/a2a_client.py …
#
# `a2a-sdk` and three of its pure-Python dependencies are not on this project's Python package
# mirror, so their wheels are kept in wheels/, built without change from their public sources
# (`pip wheel --no-deps --no-build-isolation`, the version written into pyproject.toml in place of
# the git-derived one, which an exported tree cannot compute):
#   a2a_sdk-1.1.0    github.com/a2aproject/a2a-python  v1.1.0  96c14b79325c72560359ad112998c0c09ed0b249 (Apache-2.0)
#   json_rpc-1.15.0  github.com/pavlov99/json-rpc      1.15.0  973fae4bc784202f92bb85246fa2dc5584554575 (MIT)
#   culsans-0.11.0   github.com/x42005e1f/culsans       0.11.0  56e826068fa91e5ad868e8d5108495201745c587 (ISC)
#   aiologic-0.17.1  github.com/x42005e1f/aiologic      0.17.1  a3051c56f0b8a420780bbca17dcff5ac926eff88 (ISC)
# The rest (httpx, pydantic, protobuf, google-api-core, …) comes from the mirror pip is set up with.
# A2A_PYTHON_VENV sets where the environment goes (default: a folder under the system temp dir).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=$("$here/../support/python-venv.sh" "${A2A_PYTHON_VENV:-${TMPDIR:-/tmp}/actorkit-a2a-python-venv}" \
  'import a2a.client' "$here/wheels" 'a2a-sdk==1.1.0')
echo "$bin/python"
