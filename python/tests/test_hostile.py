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


@pytest.fixture
def axpy(cache_dir):
    module = cuk.load(os.path.join(ROOT, "cuk-examples", "axpy.cuk"), target="sm_90a", cache_dir=cache_dir)
    return module.axpy


def test_numpy_scalars_are_numbers(axpy):
    numpy = pytest.importorskip("numpy")
    from conftest import CudaArray

    x, y = CudaArray((1000,)), CudaArray((1000,), address=0x7F0000100000)
    expected = axpy.check(1000, 2.0, x, y)
    assert axpy.check(numpy.int64(1000), numpy.float32(2), x, y) == expected
    assert axpy.check(numpy.int32(1000), numpy.float64(2.0), x, y) == expected
    with pytest.raises(ValueError, match=r"`n` is an integer, but a value of type `float` was given"):
        axpy.check(1000.0, 2.0, x, y)
    with pytest.raises(ValueError, match=r"`alpha` is a float \(f32\), but a value of type `bool_?` was given"):
        axpy.check(1000, numpy.bool_(True), x, y)


def test_a_float_beyond_range_says_so(axpy):
    from conftest import CudaArray

    x, y = CudaArray((1000,)), CudaArray((1000,), address=0x7F0000100000)
    with pytest.raises(ValueError, match=r"`alpha` = 1000000000000000000000000000000000000000\.\.\. \(401 characters\) is beyond a float's range \(f32\)"):
        axpy.check(x, y, alpha=10**400)


def test_an_argument_by_position_and_by_name_counts_both(copy_f32):
    from conftest import CudaArray

    a, out = CudaArray((64, 256)), CudaArray((64, 256), address=0x7F0000100000)
    with pytest.raises(TypeError, match=r"; 3 were given"):
        copy_f32.copy_f32.check(a, out, a=a)


def test_an_empty_tensor_is_not_refused_for_its_own_shape(copy_f32):
    from conftest import CudaArray

    a, out = CudaArray((0, 256)), CudaArray((0, 256), address=0x7F0000100000)
    try:
        copy_f32.copy_f32.check(a, out)
    except ValueError as error:
        assert "but this one has shape (0, 256)" not in str(error)


def test_ctrl_c_interrupts_a_long_emulated_call(tmp_path):
    import signal
    import subprocess
    import sys

    # A process started in the background by a non-interactive shell (as CI runs) inherits
    # SIGINT ignored, and Python then leaves it ignored: the child installs the handler an
    # interactive Python has, so that the test sees what a user's Ctrl-C does.
    script = f"""
import numpy, cuk, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
module = cuk.load({os.path.join(ROOT, 'tests', 'hostile', 'endless_emulation.cuk')!r}, emulate=True, cache_dir={str(tmp_path)!r})
print("calling", flush=True)
try:
    module.spin(1000000000, numpy.zeros(1024, dtype=numpy.float32))
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(3)
"""
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                             env=dict(os.environ))
    assert child.stdout.readline().strip() == "calling"
    time.sleep(1.5)
    assert child.poll() is None, "the call ended early"
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    # The call raises KeyboardInterrupt at once; the interpreter's exit afterwards once
    # took longer than 5 s on a loaded CI machine, so it gets 30 s (the abandoned
    # emulation alone would run for minutes).
    import select
    try:
        ready, _, _ = select.select([child.stdout], [], [], 5)
        assert ready, "no KeyboardInterrupt within 5 s"
        assert child.stdout.readline().strip() == "interrupted"
        interrupted = time.monotonic() - sent
        child.wait(timeout=30)
    finally:
        child.kill()
    assert interrupted < 1.5
    assert child.returncode == 3
