#!/usr/bin/env bash
# The official Python MCP SDK for tests/it/mcp_official.rs: a virtualenv under target/ (so it
# is never committed) with exactly the versions in requirements.txt, from PyPI. Run it once;
# it does nothing when the venv already holds those versions. Needs python3 >= 3.10.
set -euo pipefail
cd "$(dirname "$0")/../.."

VENV="target/mcp-client-venv"
REQUIREMENTS="tests/mcp_client/requirements.txt"
STAMP="$VENV/requirements.installed"

PYTHON="${PYTHON:-python3}"
command -v "$PYTHON" >/dev/null || { echo "python3 (3.10 or newer) is required" >&2; exit 1; }
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
  || { echo "python3 is $("$PYTHON" --version 2>&1); the MCP SDK needs 3.10 or newer" >&2; exit 1; }

if [ -f "$STAMP" ] && cmp -s "$STAMP" "$REQUIREMENTS"; then
  echo "official MCP client already set up in $VENV"
  exit 0
fi
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
# --no-deps: the pinned list is the whole environment, so nothing newer slips in.
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$REQUIREMENTS"
"$VENV/bin/python" -m pip check
cp "$REQUIREMENTS" "$STAMP"
echo "official MCP client set up in $VENV ($("$VENV/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))'))"
