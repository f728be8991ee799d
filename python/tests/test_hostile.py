"""Inputs that once crashed the interpreter, hung or exhausted memory (issue 34): each is
refused promptly, or compiles, with an exception rather than a signal."""

import json
import os
import time

import pytest

import cuk

from conftest import ROOT


def test_a_fifo_and_dev_zero_are_refused_without_reading(tmp_path, cache_dir):
    fifo = tmp_path / "pipe.cuk"
    os.mkfifo(fifo)
    for special in (str(fifo), "/dev/zero"):
        started = time.monotonic()
        with pytest.raises(OSError, match=r"not a regular file"):
            cuk.load(special, cache_dir=cache_dir)
        assert time.monotonic() - started < 5


def test_a_file_over_sixteen_mebibytes_is_refused_by_size(tmp_path, cache_dir):
    huge = tmp_path / "huge.cuk"
    with open(huge, "wb") as file:
        file.truncate((16 << 20) + 1)
    with pytest.raises(OSError, match=r"at most 16777216 bytes"):
        cuk.load(str(huge), cache_dir=cache_dir)


def test_three_hundred_thousand_comment_lines_compile(cache_dir):
    source = "// x\n" * 300_000 + (
        "kernel k(a: gmem f32[32:1]) launch grid(1) block(32) { a[thread_idx.x] = 1.0; }\n"
    )
    module = cuk.compile(source, name="comments.cuk", cache_dir=cache_dir, emulate=True)
    assert module.k.const_args == {}


def test_stray_characters_stop_at_the_lexical_error_limit(cache_dir):
    with pytest.raises(cuk.CompileError) as raised:
        cuk.compile("@\n" * (1 << 20), name="strays.cuk", cache_dir=cache_dir)
    assert raised.value.codes == ["E0101"] * 100 + ["E0116"]


def test_a_huge_tcgen05_operand_is_a_compile_error(cache_dir):
    path = os.path.join(ROOT, "tests", "hostile", "umma_huge_operand.cuk")
    with pytest.raises(cuk.CompileError) as raised:
        cuk.load(path, target="sm_100a", cache_dir=cache_dir, emulate=True)
    assert "E0227" in raised.value.codes


COPY = os.path.join(ROOT, "cuk-examples", "copy_vectorized.cuk")


def _entry(cache_dir):
    (entry,) = os.listdir(cache_dir)
    return os.path.join(cache_dir, entry)


def test_an_edited_manifest_is_a_miss_and_the_entry_is_rewritten(cache_dir):
    first = cuk.load(COPY, target="sm_90a", cache_dir=cache_dir)
    manifest_path = os.path.join(_entry(cache_dir), "manifest.json")
    with open(manifest_path) as file:
        manifest = json.load(file)
    kernel = manifest["kernels"][0]
    assert kernel["params"], manifest
    # Parameters swapped and the host's checks removed: the hashes still match.
    kernel["params"].reverse()
    kernel["assumptions"] = []
    with open(manifest_path, "w") as file:
        json.dump(manifest, file)
    again = cuk.load(COPY, target="sm_90a", cache_dir=cache_dir)
    assert not again.from_cache
    assert again.manifest == first.manifest
    assert cuk.load(COPY, target="sm_90a", cache_dir=cache_dir).from_cache


def test_a_manifest_that_parses_but_does_not_fit_is_rewritten(cache_dir):
    cuk.load(COPY, target="sm_90a", cache_dir=cache_dir)
    manifest_path = os.path.join(_entry(cache_dir), "manifest.json")
    with open(manifest_path) as file:
        manifest = json.load(file)
    manifest["kernels"][0]["params"] = [{"name": "x", "kind": "no such kind"}]
    with open(manifest_path, "w") as file:
        json.dump(manifest, file)
    assert not cuk.load(COPY, target="sm_90a", cache_dir=cache_dir).from_cache
    assert cuk.load(COPY, target="sm_90a", cache_dir=cache_dir).from_cache


def test_a_fifo_planted_as_a_cache_entry_file_is_a_miss_not_a_wait(cache_dir):
    cuk.load(COPY, target="sm_90a", cache_dir=cache_dir)
    entry = _entry(cache_dir)
    for name in ("manifest.json", "kernels.cubin"):
        path = os.path.join(entry, name)
        os.remove(path)
        os.mkfifo(path)
        started = time.monotonic()
        assert not cuk.load(COPY, target="sm_90a", cache_dir=cache_dir).from_cache
        assert time.monotonic() - started < 30
        assert cuk.load(COPY, target="sm_90a", cache_dir=cache_dir).from_cache
