#!/usr/bin/env bash
# A real editor against `cukc lsp`: headless Neovim opens a .cuk file, attaches the
# server, waits for its diagnostics and asks for a hover, and writes what it
# received to an output file (one `line:col:code:message` line per diagnostic, then
# `hover:` and the hover's text). cli/tests/lsp_neovim.rs runs this and checks it.
#
#   editors/nvim/test.sh CUKC FILE.cuk OUT HOVER_LINE HOVER_COLUMN
#
# Neovim comes from Debian's `neovim` package, installed here when missing and
# when this runs as root with apt-get; otherwise it exits 77 (skipped) with a
# message saying why.
set -euo pipefail

cukc=$1 file=$2 out=$3 hover_line=$4 hover_column=$5
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v nvim >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "editors/nvim/test.sh: installing Debian's neovim with apt-get" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq neovim >&2 \
            || { apt-get update -qq >&2 && apt-get install -y -qq neovim >&2; } \
            || true
    fi
fi
if ! command -v nvim >/dev/null 2>&1; then
    echo "SKIP: neovim is not installed and cannot be (needs root and apt-get)" >&2
    exit 77
fi

export CUKC="$cukc" CUK_OUT="$out" CUK_HOVER_LINE="$hover_line" CUK_HOVER_COLUMN="$hover_column"
timeout 120 nvim --headless --clean -n \
    -c "luafile $here/diagnostics.lua" "$file" </dev/null >&2
