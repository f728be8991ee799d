"""Inputs that once crashed the interpreter, hung or exhausted memory (issue 34): each is
refused promptly, or compiles, with an exception rather than a signal."""

import os
import threading
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
