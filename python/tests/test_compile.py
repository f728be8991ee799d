"""Loading and compiling: modules and kernels, targets, compile errors, the launch
manifest, the disk cache and specialization. No GPU needed."""

import os

import pytest

import cuk
from conftest import EXAMPLES, KERNELS, ROOT

COPY = os.path.join(EXAMPLES, "copy_vectorized.cuk")


def test_load_exposes_each_kernel_as_a_callable(cache_dir):
    mod = cuk.load(COPY, target="sm_90a", cache_dir=cache_dir)
    assert mod.kernels == ["copy_vectorized"]
    assert mod.target == "sm_90a"
    kernel = mod.copy_vectorized
    assert isinstance(kernel, cuk.Kernel)
    assert callable(kernel)
    assert kernel.params == ["m", "k", "a", "out"]
    assert kernel.entry == "copy_vectorized"
    assert [(p["name"], p["kind"], p["dtype"], p["from_tensor"]) for p in kernel.signature] == [
        ("m", "int", "i32", True),
        ("k", "int", "i32", True),
        ("a", "tensor", "bf16", False),
        ("out", "tensor", "bf16", False),
    ]


def test_a_tma_kernel_lists_its_hidden_tensor_maps(cache_dir):
    mod = cuk.load(os.path.join(ROOT, "tests", "hopper", "tma_tile_copy.cuk"), target="sm_90a", cache_dir=cache_dir)
    assert [(p["name"], p["kind"], p["from_tensor"]) for p in mod.tma_copy.signature] == [
        ("m", "int", True),
        ("n", "int", True),
        ("a", "tensor", False),
        ("b", "tensor", False),
        ("a_tma4", "tensor_map", False),
    ]


def test_compile_takes_source_text(cache_dir):
    with open(os.path.join(KERNELS, "copy_f32.cuk")) as file:
        mod = cuk.compile(file.read(), name="inline.cuk", target="sm_80", cache_dir=cache_dir)
    assert mod.path == "inline.cuk"
    assert mod.target == "sm_80"
    assert mod.manifest["target"] == "sm_80"
    assert mod.copy_f32.const_args == {"BK": 64}


def test_an_unknown_kernel_is_an_attribute_error(copy_f32):
    with pytest.raises(AttributeError, match=r"has no kernel `copy`; its kernels: copy_f32"):
        copy_f32.copy


def test_an_unknown_target_is_a_value_error(cache_dir):
    with pytest.raises(ValueError, match=r"unknown target `sm_75`"):
        cuk.load(COPY, target="sm_75", cache_dir=cache_dir)


def test_a_missing_file_is_an_os_error(cache_dir):
    with pytest.raises(OSError, match=r"cannot read .*nowhere\.cuk"):
        cuk.load("nowhere.cuk", cache_dir=cache_dir)


def test_a_syntax_error_is_a_compile_error_with_the_rendered_diagnostic(cache_dir):
    with pytest.raises(cuk.CompileError) as raised:
        cuk.compile("kernel broken(\n", name="broken.cuk", cache_dir=cache_dir)
    assert raised.value.codes == ["E0111"]
    message = str(raised.value)
    assert "[E0111] Error: unclosed `(`" in message
    assert "broken.cuk:1:14" in message


def test_a_type_error_is_a_compile_error_at_its_line(cache_dir):
    source = open(os.path.join(KERNELS, "copy_f32.cuk")).read().replace(
        "let sA = smem f32", "let sA = smem bf16"
    )
    with pytest.raises(cuk.CompileError) as raised:
        cuk.compile(source, name="typo.cuk", target="sm_90a", cache_dir=cache_dir)
    assert raised.value.codes
    assert all(code.startswith("E0") for code in raised.value.codes)
    assert "typo.cuk:" in str(raised.value)


def test_the_manifest_describes_the_launch(cache_dir):
    manifest = cuk.load(COPY, target="sm_90a", cache_dir=cache_dir).manifest
    assert manifest["format"] == "cuk-manifest"
    assert manifest["image"]["kind"] == "cubin"
    assert len(manifest["image"]["sha256"]) == 64
    (kernel,) = manifest["kernels"]
    assert [param["name"] for param in kernel["params"]] == ["m", "k", "a", "out"]
    assert kernel["params"][2]["shape"] == ["m", "k"]
    assert kernel["launch"]["block"] == [128, 1, 1]
    assert kernel["launch"]["shared_bytes"] == 32 * 64 * 2
    assumptions = {(entry["kind"], entry["param"]) for entry in kernel["assumptions"]}
    assert assumptions == {("multiple_of", "k"), ("aligned", "a"), ("aligned", "out")}


def test_a_second_load_compiles_nothing(cache_dir):
    before = cuk.stats()
    first = cuk.load(COPY, target="sm_90a", cache_dir=cache_dir)
    second = cuk.load(COPY, target="sm_90a", cache_dir=cache_dir)
    after = cuk.stats()
    assert not first.from_cache
    assert second.from_cache
    assert after["compiled"] == before["compiled"] + 1
    assert after["cache_hits"] == before["cache_hits"] + 1
    assert second.manifest == first.manifest
    assert len(os.listdir(cache_dir)) == 1


def test_the_cache_is_keyed_by_target_and_source(cache_dir):
    cuk.load(COPY, target="sm_90a", cache_dir=cache_dir)
    assert not cuk.load(COPY, target="sm_80", cache_dir=cache_dir).from_cache
    source = open(COPY).read() + "\n// changed\n"
    assert not cuk.compile(source, target="sm_90a", cache_dir=cache_dir).from_cache
    assert len(os.listdir(cache_dir)) == 3


def test_a_damaged_cache_entry_is_compiled_again(cache_dir):
    cuk.load(COPY, target="sm_90a", cache_dir=cache_dir)
    (entry,) = os.listdir(cache_dir)
    with open(os.path.join(cache_dir, entry, "kernels.cubin"), "wb") as file:
        file.write(b"not a cubin")
    again = cuk.load(COPY, target="sm_90a", cache_dir=cache_dir)
    assert not again.from_cache
    assert cuk.load(COPY, target="sm_90a", cache_dir=cache_dir).from_cache


def test_specialize_compiles_the_instantiation(copy_f32, cache_dir):
    narrow = copy_f32.copy_f32.specialize(BK=32)
    assert narrow.const_args == {"BK": 32}
    assert narrow.entry == "copy_f32__BK_32"
    # The same specialization again comes from memory, and a new load's from the cache.
    assert copy_f32.copy_f32.specialize(BK=32).entry == narrow.entry
    reloaded = cuk.load(os.path.join(KERNELS, "copy_f32.cuk"), target="sm_90a", cache_dir=cache_dir)
    before = cuk.stats()["compiled"]
    reloaded.copy_f32.specialize(BK=32)
    assert cuk.stats()["compiled"] == before


def test_an_unknown_const_parameter_is_a_type_error(copy_f32):
    with pytest.raises(TypeError, match=r"copy_f32\.cuk:8: `copy_f32` has no const parameter `BN`; its const parameters: BK"):
        copy_f32.copy_f32.specialize(BN=32)


def test_a_const_argument_of_the_wrong_kind_is_a_value_error(copy_f32):
    with pytest.raises(ValueError, match=r"copy_f32\.cuk:8: `copy_f32`: `BK` is an int const parameter, and bf16 is not an int"):
        copy_f32.copy_f32.specialize(BK="bf16")


def test_a_const_argument_that_breaks_the_kernel_is_a_compile_error(copy_f32):
    with pytest.raises(cuk.CompileError):
        copy_f32.copy_f32.specialize(BK=48)


def test_an_unwritable_cache_is_a_warning_not_an_error(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    with pytest.warns(RuntimeWarning, match=r"cannot write the kernel cache"):
        mod = cuk.load(COPY, target="sm_90a", cache_dir=str(blocked / "cache"))
    assert not mod.from_cache
    assert mod.kernels == ["copy_vectorized"]


def test_the_type_stub_names_what_the_extension_has():
    import ast

    import cuk._cuk as extension

    stub = os.path.join(os.path.dirname(__file__), "..", "cuk", "_cuk.pyi")
    tree = ast.parse(open(stub).read())
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            assert hasattr(extension, node.name), node.name
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                # __getattr__ is a slot of the type, not an attribute.
                if isinstance(member, ast.FunctionDef) and member.name != "__getattr__":
                    assert hasattr(getattr(extension, node.name), member.name), (node.name, member.name)
    defined = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    exported = {name for name in dir(extension) if not name.startswith("_")}
    assert defined == exported
    # The package exports every one (`autotune` wrapped by cuk/tuning.py, whose
    # dataclasses are typed where they are defined).
    assert exported <= set(cuk.__all__)
