"""Types of the extension module ``cuk._cuk`` (see ``cuk/__init__.py`` and python/README.md)."""

from os import PathLike
from typing import Any, Dict, List, Optional, Union

__version__: str

class CompileError(Exception):
    """A ``.cuk`` source with errors; the message is the rendered diagnostics."""

    codes: List[str]

class Kernel:
    """A compiled kernel instantiation, callable on tensors."""

    @property
    def name(self) -> str: ...
    @property
    def entry(self) -> str: ...
    @property
    def params(self) -> List[str]: ...
    @property
    def signature(self) -> List[Dict[str, Any]]: ...
    @property
    def const_args(self) -> Dict[str, Union[int, str]]: ...
    @property
    def tuned(self) -> Optional[Dict[str, Any]]:
        """The stored winner it was compiled with: ``values`` (those ``specialize`` did not
        override), ``tune``, ``bench``, ``kernel_ms``, ``gpu`` and ``file``; else ``None``."""
    def __call__(self, *args: Any, stream: Any = None, **kwargs: Any) -> None: ...
    def check(self, *args: Any, **kwargs: Any) -> Dict[str, Any]: ...
    def specialize(self, **consts: Any) -> "Kernel": ...

class Module:
    """A compiled ``.cuk`` file; each kernel is an attribute."""

    @property
    def kernels(self) -> List[str]: ...
    @property
    def target(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def from_cache(self) -> bool: ...
    @property
    def emulated(self) -> bool: ...
    @property
    def manifest(self) -> Optional[Dict[str, Any]]: ...
    @property
    def tuned(self) -> Dict[str, Dict[str, Any]]:
        """The stored winners its kernels use, by kernel (see ``Kernel.tuned``)."""
    def __getattr__(self, name: str) -> Kernel: ...

def load(
    path: Union[str, PathLike],
    *,
    target: Optional[str] = None,
    cache_dir: Optional[Union[str, PathLike]] = None,
    emulate: bool = False,
    tuned_for: Optional[str] = None,
) -> Module: ...
def compile(
    source: str,
    *,
    name: str = "<string>",
    target: Optional[str] = None,
    cache_dir: Optional[Union[str, PathLike]] = None,
    emulate: bool = False,
    tuned_for: Optional[str] = None,
) -> Module: ...
def stats() -> Dict[str, int]: ...
def autotune(
    path: Union[str, PathLike],
    *,
    tune: Optional[str] = None,
    target: Optional[str] = None,
    report: Optional[Union[str, PathLike]] = None,
    dry_run: bool = False,
    kernel_timeout: Optional[float] = None,
) -> List[Dict[str, Any]]:
    """One dict a tuned block; ``cuk.autotune`` (cuk/tuning.py) makes each a ``TuneResult``."""
def gpu() -> Optional[str]: ...
