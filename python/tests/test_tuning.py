"""Autotuning from Python without a GPU: ``cuk.load`` and ``cuk.compile`` compile a
kernel with the winner stored for the GPU (written here as ``cukc tune`` writes it),
explicit const arguments override it, a winner for an edited source or another GPU is
ignored, and ``cuk.autotune`` refuses to time without a GPU but compiles every point
with ``dry_run=True``, as ``cukc tune --dry-run`` does."""

import hashlib
import json
import os
import struct

import numpy
import pytest

import cuk
from conftest import KERNELS, ROOT

SCALE = os.path.join(KERNELS, "tuned_scale.cuk")
H100 = "NVIDIA H100 80GB HBM3"


def digest(source, gpu, bench):
    """The winner's key as cukc computes it: SHA-256 of each field's length (u64, little
    endian) and bytes, for the source, the compiler, the GPU and the bench."""
    hasher = hashlib.sha256()
    for field in (source, f"cukc {cuk.__version__}", gpu, bench):
        data = field.encode()
        hasher.update(struct.pack("<Q", len(data)))
        hasher.update(data)
    return hasher.hexdigest()


def store_winner(cache_root, source, bench, values, gpu=H100, kernel_ms=0.25):
    """Writes a winner of `scale_space` for `bench` where ``cukc tune`` keeps it."""
    folder = os.path.join(cache_root, "tune")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, digest(source, gpu, bench) + ".json")
    with open(path, "w") as file:
        json.dump(
            {
                "tune": "scale_space",
                "kernel": "scale",
                "point": [[name, str(value)] for name, value in values.items()],
                "kernel_ms": kernel_ms,
                "gpu": gpu,
                "compiler": f"cukc {cuk.__version__}",
                "bench": bench,
            },
            file,
        )
    return path


@pytest.fixture
def winners(tmp_path, monkeypatch):
    """cukc's cache directory, empty, for the winners (emulated loads need no ptxas)."""
    root = str(tmp_path / "cukc")
    monkeypatch.setenv("CUKC_CACHE_DIR", root)
    return root


@pytest.fixture
def source():
    with open(SCALE) as file:
        return file.read()


def scaled(kernel, n=256):
    x = numpy.arange(n, dtype=numpy.int32)
    out = numpy.zeros_like(x)
    kernel(x, out)
    return x, out


def test_load_compiles_the_kernel_with_the_stored_winner(winners, source, capsys):
    path = store_winner(winners, source, "scale_large", {"FACTOR": 3, "THREADS": 64})
    mod = cuk.load(SCALE, emulate=True, tuned_for=H100)
    assert mod.scale.tuned == {
        "values": {"FACTOR": 3, "THREADS": 64},
        "tune": "scale_space",
        "bench": "scale_large",
        "kernel_ms": 0.25,
        "gpu": H100,
        "file": path,
    }
    assert mod.tuned == {"scale": mod.scale.tuned}
    assert mod.scale.const_args == {"FACTOR": 3, "THREADS": 64}
    assert "using FACTOR=3 THREADS=64 for `scale`" in capsys.readouterr().err
    x, out = scaled(mod.scale)
    numpy.testing.assert_array_equal(out, 3 * x)
    assert mod.scale.check(x, out)["block"] == [64, 1, 1]


def test_a_kernel_uses_the_winner_of_its_first_bench_that_has_one(winners, source):
    store_winner(winners, source, "scale_large", {"FACTOR": 3, "THREADS": 64})
    store_winner(winners, source, "scale_small", {"FACTOR": 2, "THREADS": 32})
    mod = cuk.compile(source, name="scale.cuk", emulate=True, tuned_for=H100)
    assert mod.scale.tuned["bench"] == "scale_small"
    x, out = scaled(mod.scale)
    numpy.testing.assert_array_equal(out, 2 * x)


def test_explicit_const_arguments_override_the_winner(winners, source):
    store_winner(winners, source, "scale_large", {"FACTOR": 3, "THREADS": 64})
    kernel = cuk.load(SCALE, emulate=True, tuned_for=H100).scale
    partly = kernel.specialize(FACTOR=5)
    assert partly.const_args == {"FACTOR": 5, "THREADS": 64}
    assert partly.tuned["values"] == {"THREADS": 64}
    x, out = scaled(partly)
    numpy.testing.assert_array_equal(out, 5 * x)
    assert partly.check(x, out)["block"] == [64, 1, 1]
    wholly = kernel.specialize(FACTOR=7, THREADS=32)
    assert wholly.tuned is None
    x, out = scaled(wholly)
    numpy.testing.assert_array_equal(out, 7 * x)
    assert wholly.check(x, out)["block"] == [32, 1, 1]


def test_a_winner_for_an_edited_source_or_another_gpu_is_ignored(winners, source, capsys):
    store_winner(winners, source, "scale_large", {"FACTOR": 3, "THREADS": 64})
    edited = source.replace("// The tuning tests' kernel", "// The tuning tests' edited kernel")
    assert edited != source
    for mod in (
        cuk.compile(edited, name="edited.cuk", emulate=True, tuned_for=H100),
        cuk.load(SCALE, emulate=True, tuned_for="NVIDIA A100-SXM4-80GB"),
        cuk.load(SCALE, emulate=True),
    ):
        assert mod.scale.tuned is None
        assert mod.tuned == {}
        assert mod.scale.const_args == {"FACTOR": 1, "THREADS": 32}
        x, out = scaled(mod.scale)
        numpy.testing.assert_array_equal(out, x)
    assert "using" not in capsys.readouterr().err


def test_a_winner_that_does_not_read_back_is_ignored(winners, source):
    path = store_winner(winners, source, "scale_large", {"FACTOR": 3, "THREADS": 64})
    with open(path, "w") as file:
        file.write("{not json")
    assert cuk.load(SCALE, emulate=True, tuned_for=H100).scale.tuned is None


@pytest.mark.skipif(cuk.gpu() is not None, reason="this machine has a GPU")
def test_autotune_without_a_gpu_is_a_clear_error_at_once(tmp_path):
    with pytest.raises(RuntimeError, match=r"cuk.autotune: no GPU to time on .*dry_run=True"):
        cuk.autotune(SCALE, report=str(tmp_path / "r.txt"))
    assert not (tmp_path / "r.txt").exists()


def test_a_dry_run_compiles_every_point_and_says_which_are_valid(tmp_path, capfd):
    report = tmp_path / "scale.txt"
    (result,) = cuk.autotune(SCALE, dry_run=True, report=str(report), quiet=True)
    assert isinstance(result, cuk.TuneResult)
    assert (result.tune, result.kernel, result.gpu) == ("scale_space", "scale", None)
    assert result.benches == ["scale_small", "scale_large"]
    assert [row.configuration for row in result.rows] == [
        f"FACTOR={factor} THREADS={threads}" for factor in (2, 3) for threads in (32, 64, 2048)
    ]
    assert result.rows[1].values == {"FACTOR": 2, "THREADS": 64}
    assert [row.index for row in result.valid] == [1, 2, 4, 5]
    for row in result.valid:
        assert row.registers > 0 and row.shared_bytes == 0 and row.times is None
    assert "at most 1024 threads" in result.rows[2].rejected
    assert result.rows[2].registers is None
    assert result.winners == {}
    assert result.report == str(report)
    assert report.read_text() == result.table
    assert result.table.count("compiled, not timed") == 4
    assert "6 of 6 points kept by the conditions, 4 compiled within the limits" in capfd.readouterr().err


def test_a_dry_run_prints_the_table_unless_quiet(tmp_path, capsys):
    cuk.autotune(SCALE, dry_run=True, report=str(tmp_path / "r.txt"))
    assert "FACTOR=3 THREADS=2048  rejected" in capsys.readouterr().out


def test_a_space_with_no_valid_point_is_a_compile_error_after_its_table(tmp_path):
    report = tmp_path / "nothing.txt"
    with pytest.raises(cuk.CompileError) as raised:
        cuk.autotune(os.path.join(ROOT, "tests", "tune", "nothing_valid.cuk"), dry_run=True, report=str(report))
    assert raised.value.codes == ["E0236"]
    assert "has no valid point" in str(raised.value)
    assert report.read_text().count("rejected:") == 2


def test_naming_a_block_the_file_lacks_is_a_value_error():
    with pytest.raises(ValueError, match=r"has no tune block `nope`"):
        cuk.autotune(SCALE, tune="nope", dry_run=True)


def test_a_file_with_errors_is_a_compile_error_before_anything_is_compiled(tmp_path):
    broken = tmp_path / "broken.cuk"
    with open(SCALE) as file:
        broken.write_text(file.read().replace("THREADS in [32, 64, 2048];", "WIDTH in [1];"))
    with pytest.raises(cuk.CompileError) as raised:
        cuk.autotune(str(broken), dry_run=True)
    assert "E0233" in raised.value.codes
