"""The compiled-module contract between the compiler and the runtime (docs/design.md,
"Compiled-module contract"): the entry symbol, the alignment of the params and workspace blobs,
the element types a buffer may have, and the manifest that describes a compiled module.

A leaf module: `graph-to-tp` writes the manifest (`mlc.manifest` module attribute), the runtime
reads it; neither imports the other. The contract part (`entry`, `inputs`, `outputs`, `params`,
`params_size`, `workspace_size`) comes from `graph-to-tp`. The build part (`pipeline`, `target`,
versions, `runtime_libs`, `source`) is added when a `CompiledLibrary` is made, and travels in a
package's `manifest.json`.

    m = Manifest.from_json(text)      # parse + validate; ManifestError says what is wrong
    m.inputs[0].describe()            # 'float32[1,3,224,224]'
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from mlc import symbolic
from mlc.errors import MlcError

SCHEMA_VERSION = 1
"""Bumped whenever the JSON layout changes incompatibly."""

ENTRY = "mlc_main"
MANIFEST_ATTR = "mlc.manifest"
"""The module attribute holding the manifest JSON (set by graph-to-tp, read by the runtime)."""
"""The model entry `graph-to-tp` emits: `mlc_main(inputs..., outputs..., params, workspace)`."""

LIBRARIES_ATTR = "mlc.libraries"
"""Module attribute: the user's shared libraries a module calls into (library kernels), a
dictionary short name -> path of `lib<name>.so`; the runtime links and bundles them like its own
runtime libraries (manifest `runtime_libs`)."""

ALIGNMENT = 64
"""Byte alignment of every parameter in the params blob, of every planned buffer in the workspace
and kernel scratch, and of the blobs themselves (a cache line; AVX-512-safe)."""

NUMPY_DTYPES = {
    "f16": "float16",
    "f32": "float32",
    "f64": "float64",
    "i1": "bool",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "ui8": "uint8",
    "ui16": "uint16",
    "ui32": "uint32",
    "ui64": "uint64",
}
"""Graph element type (MLIR name) -> numpy dtype name, for every type a model's inputs,
outputs and parameters may have (bf16 has no numpy dtype)."""

DTYPES = tuple(NUMPY_DTYPES.values())
"""Element types a manifest may name; each maps to the numpy dtype of the same name."""

MLIR_TYPES = {v: k for k, v in NUMPY_DTYPES.items()}
"""numpy dtype name -> graph element type (MLIR name)."""


_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_c_identifier(name: str) -> bool:
    """An entry symbol must be a C identifier: ASCII letters, digits, '_', no leading digit."""
    return _C_IDENTIFIER.fullmatch(name) is not None


def aligned(nbytes: int) -> int:
    """`nbytes` (at least 1) rounded up to the contract's alignment."""
    return -(-max(nbytes, 1) // ALIGNMENT) * ALIGNMENT


def buffer_element_types(dtype: str) -> tuple[str, ...]:
    """The memref element types a buffer of numpy `dtype` may have at the entry: integers are
    signless in arith, so unsigned (and explicitly signed) tensors are also `iN` buffers, and
    bools are stored as bytes (memrefs of i1 do not lower)."""
    mlir = MLIR_TYPES[dtype]
    if mlir == "i1":
        return ("i8", "i1")
    if mlir.startswith("ui"):
        return (mlir[1:], mlir)
    if mlir.startswith("i") and mlir != "i1":
        return (mlir, "s" + mlir)
    return (mlir,)


class ManifestError(MlcError):
    """A manifest that is missing, malformed, or inconsistent with its module or params."""


@dataclass(frozen=True)
class TensorSpec:
    """One input or output: its name, shape and numpy dtype name. A dim is an int, or a str
    holding a dim expression in `mlc.symbolic` syntax (`"seq"`, `"batch*seq"`, `"past + seq"`)
    whose value is known once the manifest's symbols are bound at run time."""

    name: str
    shape: tuple[int | str, ...]
    dtype: str

    @property
    def is_static(self) -> bool:
        return all(isinstance(d, int) for d in self.shape)

    @property
    def nbytes(self) -> int:
        """Bytes of a static spec; a symbolic one has none until its symbols are known
        (`nbytes_at`)."""
        if not self.is_static:
            raise ManifestError(
                f"'{self.name}' ({self.describe()}) has symbolic dims: its size is known only "
                "with the symbols' values (nbytes_at)"
            )
        return math.prod(self.shape) * np.dtype(self.dtype).itemsize  # type: ignore[arg-type]

    def dims(self) -> tuple[int | symbolic.Dim, ...]:
        """The shape with each expression parsed."""
        return tuple(d if isinstance(d, int) else symbolic.parse(d) for d in self.shape)

    def shape_at(self, env: Mapping[str, int]) -> tuple[int, ...]:
        """The shape once every symbol has a value (KeyError names a missing one)."""
        return tuple(symbolic.evaluate(d, env) for d in self.dims())

    def nbytes_at(self, env: Mapping[str, int]) -> int:
        return math.prod(self.shape_at(env)) * np.dtype(self.dtype).itemsize

    def describe(self) -> str:
        """`float32[1,3,224,224]` (the form used in every error message)."""
        return f"{self.dtype}[{','.join(str(d) for d in self.shape)}]"


@dataclass(frozen=True)
class ParamSpec(TensorSpec):
    """One parameter and its byte offset inside the params blob."""

    offset: int = 0


@dataclass(frozen=True)
class TargetInfo:
    """The CPU the code was generated for (the JIT and object export target the host)."""

    triple: str
    cpu: str
    features: tuple[str, ...] = ()
    """ISA extensions of that CPU that generated code may use (`/proc/cpuinfo` names)."""


@dataclass(frozen=True)
class SourceModel:
    """The model file a module was compiled from, to re-run it as a reference (`--verify`)."""

    path: str
    sha256: str


@dataclass(frozen=True)
class Manifest:
    """Everything needed to call a compiled module, and to know how it was built."""

    entry: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    params: tuple[ParamSpec, ...]
    params_size: int
    workspace_size: int
    pipeline: str | None = None
    """The canonical pass pipeline that lowered the module to the LLVM dialect."""
    target: TargetInfo | None = None
    mlc_version: str | None = None
    mlir_version: str | None = None
    runtime_libs: tuple[str, ...] = ()
    """MLIR runtime libraries the code calls into, by short name (`mlir_async_runtime`)."""
    source: SourceModel | None = None
    params_sha256: str | None = None
    """`params_digest` of the parameters the module was compiled with: a loader refuses others."""
    schema: int = SCHEMA_VERSION
    symbols: dict[str, tuple[int, int | None]] = field(default_factory=dict)
    """Each symbol the dims name, with its inclusive bounds (lo, hi; None: unbounded);
    a symbol the dims name but this omits has the bounds (1, None)."""
    shape_checks: tuple[str, ...] = ()
    """Equalities `"A == B"` of dim expressions that must hold before every call
    (`"min(512, seq) == seq"`: the graph assumed seq <= 512)."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    """Unknown top-level keys, kept so that a newer writer's fields survive a round trip."""

    # -- parsing -------------------------------------------------------------------------
    @classmethod
    def from_json(cls, text: str) -> Manifest:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ManifestError(f"manifest is not valid JSON: {e}") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: object) -> Manifest:
        d = _Reader(data, "manifest")
        schema = d.optional_int("schema", SCHEMA_VERSION)
        if schema > SCHEMA_VERSION:
            raise ManifestError(
                f"manifest schema {schema} is newer than this mlc understands "
                f"({SCHEMA_VERSION}); upgrade mlc"
            )
        target = d.optional_obj("target")
        source = d.optional_obj("source")
        manifest = cls(
            entry=d.text("entry"),
            inputs=tuple(_tensor(t, f"inputs[{i}]") for i, t in enumerate(d.items("inputs"))),
            outputs=tuple(_tensor(t, f"outputs[{i}]") for i, t in enumerate(d.items("outputs"))),
            params=tuple(_param(p, f"params[{i}]") for i, p in enumerate(d.items("params", []))),
            params_size=d.integer("params_size"),
            workspace_size=d.integer("workspace_size"),
            pipeline=d.optional_str("pipeline"),
            target=None
            if target is None
            else TargetInfo(
                target.text("triple"),
                target.text("cpu"),
                tuple(str(f) for f in target.items("features", [])),
            ),
            mlc_version=d.optional_str("mlc_version"),
            mlir_version=d.optional_str("mlir_version"),
            runtime_libs=tuple(str(x) for x in d.items("runtime_libs", [])),
            source=None
            if source is None
            else SourceModel(source.text("path"), source.text("sha256")),
            params_sha256=d.optional_str("params_sha256"),
            schema=schema,
            symbols=_symbols(d),
            shape_checks=tuple(
                _check_text(c, i) for i, c in enumerate(d.items("shape_checks", []))
            ),
            extra={k: v for k, v in d.data.items() if k not in _KNOWN_KEYS},
        )
        manifest.validate()
        return manifest

    def validate(self) -> None:
        """Check internal consistency; raises ManifestError naming the first fault."""
        if not is_c_identifier(self.entry):
            raise ManifestError(f"manifest entry {self.entry!r} is not a valid symbol name")
        if not self.outputs:
            raise ManifestError("manifest lists no outputs")
        for kind, specs in (
            ("input", self.inputs),
            ("output", self.outputs),
            ("param", self.params),
        ):
            names = [s.name for s in specs]
            dup = sorted({n for n in names if names.count(n) > 1})
            if dup:
                raise ManifestError(f"manifest has duplicate {kind} names: {', '.join(dup)}")
        for size_name in ("params_size", "workspace_size"):
            if getattr(self, size_name) < 0:
                raise ManifestError(f"manifest {size_name} must be >= 0")
        for p in self.params:
            if p.offset % ALIGNMENT:
                raise ManifestError(
                    f"param '{p.name}' offset {p.offset} is not a multiple of {ALIGNMENT}"
                )
            if p.offset + p.nbytes > self.params_size:
                raise ManifestError(
                    f"param '{p.name}' ({p.describe()}, {p.nbytes} bytes at offset "
                    f"{p.offset}) ends beyond params_size {self.params_size}"
                )
        spans = sorted((p.offset, p.offset + p.nbytes, p.name) for p in self.params if p.nbytes)
        for (_, end, a), (start, _, b) in zip(spans, spans[1:]):
            if start < end:
                raise ManifestError(f"params '{a}' and '{b}' overlap in the params blob")
        self._validate_symbols()

    def _validate_symbols(self) -> None:
        """Every expression parses, and every symbol an output, an expression or a check
        names is bound by an input dim that is exactly that symbol."""
        for name, (lo, hi) in self.symbols.items():
            if not name.isidentifier():
                raise ManifestError(f"manifest symbol {name!r} is not an identifier")
            if lo < 0 or (hi is not None and hi < lo):
                raise ManifestError(f"manifest symbol '{name}' has empty bounds [{lo}, {hi}]")
        bound: set[str] = set()
        named: dict[str, str] = {}
        for kind, specs in (("input", self.inputs), ("output", self.outputs)):
            for spec in specs:
                for axis, dim in enumerate(_spec_dims(spec, kind)):
                    if kind == "input" and plain_symbol(dim) is not None:
                        bound.add(plain_symbol(dim))  # type: ignore[arg-type]
                    for s in sorted(symbolic.free_symbols(dim)):
                        named.setdefault(s, f"{kind} '{spec.name}' axis {axis}")
        for check in self.shape_checks:
            for side in check_sides(check):
                for s in sorted(symbolic.free_symbols(side)):
                    named.setdefault(s, f"shape check '{check}'")
        for s, where in named.items():
            if s not in bound:
                raise ManifestError(
                    f"manifest symbol '{s}' (in {where}) is not bound: no input has a dim "
                    f"that is exactly '{s}', so its value cannot be known at run time"
                )
        unused = sorted(set(self.symbols) - bound)
        if unused:
            raise ManifestError(f"manifest symbols {', '.join(unused)} name no input dim")

    @property
    def is_static(self) -> bool:
        return all(s.is_static for s in (*self.inputs, *self.outputs))

    def bounds(self, name: str) -> tuple[int, int | None]:
        """The inclusive bounds of symbol `name` (default (1, None))."""
        return self.symbols.get(name, (1, None))

    # -- writing -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.extra)
        out.update(
            schema=self.schema,
            entry=self.entry,
            inputs=[_spec_dict(t) for t in self.inputs],
            outputs=[_spec_dict(t) for t in self.outputs],
            params=[_spec_dict(p) for p in self.params],
            params_size=self.params_size,
            workspace_size=self.workspace_size,
        )
        for key in ("pipeline", "mlc_version", "mlir_version", "params_sha256"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.target is not None:
            out["target"] = {
                "triple": self.target.triple,
                "cpu": self.target.cpu,
                "features": list(self.target.features),
            }
        if self.symbols:
            out["symbols"] = {k: [lo, hi] for k, (lo, hi) in self.symbols.items()}
        if self.shape_checks:
            out["shape_checks"] = list(self.shape_checks)
        out["runtime_libs"] = list(self.runtime_libs)
        if self.source is not None:
            out["source"] = asdict(self.source)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=False) + "\n"

    def with_build_info(self, **changes: Any) -> Manifest:
        """A copy with build fields (pipeline, target, versions, runtime_libs, source) set."""
        return replace(self, **changes)

    def signature(self) -> str:
        """`(data: float32[1,3,224,224]) -> (prob: float32[1,1000])`, for error messages."""
        ins = ", ".join(f"{t.name}: {t.describe()}" for t in self.inputs)
        outs = ", ".join(f"{t.name}: {t.describe()}" for t in self.outputs)
        return f"({ins}) -> ({outs})"


_KNOWN_KEYS = {
    "schema",
    "entry",
    "inputs",
    "outputs",
    "params",
    "params_size",
    "workspace_size",
    "pipeline",
    "target",
    "mlc_version",
    "mlir_version",
    "runtime_libs",
    "source",
    "params_sha256",
    "symbols",
    "shape_checks",
}


PROFILE_KEY = "profile"
"""Manifest key of a module compiled with kernel timers (`tp-profile`): one item per kernel call
of the entry, in call order, `{kernel, nodes, ops, anchor, flops[, op_types]}`;
`profile_symbol(entry)` reads the counters (one nanosecond total per call, then the number of
runs)."""


def profile_symbol(entry: str) -> str:
    """`<entry>_profile(memref<(calls + 1) x i64>)`: copies the kernel timers out, zeroes them."""
    return f"{entry}_profile"


@dataclass(frozen=True)
class ProfiledCall:
    """One timed kernel call: the kernel, the ONNX nodes it runs, its graph ops, the op it is
    about (its reduction's, else its first), and arithmetic operations per call."""

    kernel: str
    nodes: tuple[str, ...]
    ops: tuple[str, ...]
    anchor: str
    flops: int | str
    """Arithmetic operations per call: an int, or an expression over the symbolic dims
    (`96*seq`) when it depends on sizes known only at run time (`flops_at` evaluates it)."""
    op_types: tuple[str, ...] = ()
    """The ONNX op types of `nodes`, distinct, in node order (`mlc compile` adds them from the
    model; empty when unknown)."""


def profiled_calls(manifest: Manifest) -> tuple[ProfiledCall, ...] | None:
    """The timed calls of a module compiled with kernel timers; None without them."""
    items = manifest.extra.get(PROFILE_KEY)
    if items is None:
        return None
    try:
        return tuple(
            ProfiledCall(
                str(d["kernel"]),
                tuple(str(n) for n in d["nodes"]),
                tuple(str(o) for o in d["ops"]),
                str(d["anchor"]),
                _flops(d["flops"]),
                tuple(str(t) for t in d.get("op_types", ())),
            )
            for d in items
        )
    except (KeyError, TypeError, ValueError) as e:
        raise ManifestError(f"manifest '{PROFILE_KEY}' is malformed: {e}") from None


def _flops(value: object) -> int | str:
    if isinstance(value, str):
        symbolic.parse(value)  # ValueError when it is not a dim expression
        return value
    return int(value)  # type: ignore[call-overload]


def flops_at(call: ProfiledCall, env: Mapping[str, int]) -> int:
    """The call's arithmetic operations with the symbols' values of a run."""
    if isinstance(call.flops, str):
        return symbolic.evaluate(symbolic.parse(call.flops), env)
    return call.flops


def params_digest(manifest: Manifest, params: Mapping[str, np.ndarray]) -> str:
    """sha256 of the params blob these params pack into: each parameter's bytes at its manifest
    offset, zeros elsewhere, `params_size` bytes in all. Names, dtypes and shapes are in the
    manifest, so this equals `hashlib.sha256(blob)` of a package's params.bin, computed without
    building the blob."""
    digest = hashlib.sha256()
    at = 0
    for spec in sorted(manifest.params, key=lambda p: p.offset):
        if spec.nbytes == 0:
            continue
        digest.update(bytes(spec.offset - at))
        value = np.ascontiguousarray(params[spec.name], dtype=spec.dtype)
        digest.update(memoryview(value.reshape(-1).view(np.uint8)))
        at = spec.offset + spec.nbytes
    digest.update(bytes(manifest.params_size - at))
    return digest.hexdigest()


def _spec_dict(spec: TensorSpec) -> dict[str, Any]:
    d: dict[str, Any] = {"name": spec.name, "shape": list(spec.shape), "dtype": spec.dtype}
    if isinstance(spec, ParamSpec):
        d["offset"] = spec.offset
    return d


def _tensor(data: object, where: str) -> TensorSpec:
    r = _Reader(data, where)
    return TensorSpec(r.text("name"), _shape(r, where), _dtype(r, where))


def _param(data: object, where: str) -> ParamSpec:
    r = _Reader(data, where)
    shape = _shape(r, where)
    if not all(isinstance(d, int) for d in shape):
        raise ManifestError(f"manifest {where}.shape must be static (a param), got {list(shape)}")
    return ParamSpec(r.text("name"), shape, _dtype(r, where), r.integer("offset"))


def _shape(r: _Reader, where: str) -> tuple[int | str, ...]:
    dims = r.items("shape")
    if not all(
        (isinstance(d, int) and not isinstance(d, bool) and d >= 0) or isinstance(d, str)
        for d in dims
    ):
        raise ManifestError(
            f"manifest {where}.shape must be a list of non-negative integers and dim "
            f"expressions (strings), got {dims!r}"
        )
    for d in dims:
        if isinstance(d, str):
            _parse_dim(d, f"{where}.shape")
    return tuple(dims)


def _parse_dim(text: str, where: str) -> int | symbolic.Dim:
    try:
        return symbolic.parse(text)
    except (ValueError, ZeroDivisionError) as e:
        raise ManifestError(f"manifest {where}: {e}") from None


def _spec_dims(spec: TensorSpec, kind: str) -> tuple[int | symbolic.Dim, ...]:
    return tuple(
        d if isinstance(d, int) else _parse_dim(d, f"{kind} '{spec.name}'") for d in spec.shape
    )


def plain_symbol(dim: int | symbolic.Dim) -> str | None:
    """The symbol `dim` is, if it is exactly one (`seq`, not `2*seq`)."""
    names = symbolic.free_symbols(dim)
    if len(names) == 1:
        (name,) = names
        if dim == symbolic.sym(name):
            return name
    return None


def check_sides(check: str) -> tuple[int | symbolic.Dim, int | symbolic.Dim]:
    """The two dims of a shape check `"A == B"`."""
    parts = check.split("==")
    if len(parts) != 2:
        raise ManifestError(f"manifest shape check {check!r} is not of the form 'A == B'")
    a, b = (_parse_dim(p, f"shape check {check!r}") for p in parts)
    return a, b


def _check_text(value: object, index: int) -> str:
    if not isinstance(value, str):
        raise ManifestError(
            f"manifest shape_checks[{index}] must be a string 'A == B', got {value!r}"
        )
    check_sides(value)
    return value


def _symbols(d: _Reader) -> dict[str, tuple[int, int | None]]:
    raw = d._get("symbols", dict, {})
    out: dict[str, tuple[int, int | None]] = {}
    for name, value in raw.items():
        if not (
            isinstance(value, list)
            and len(value) == 2
            and all(
                (isinstance(v, int) and not isinstance(v, bool)) or (v is None and i == 1)
                for i, v in enumerate(value)
            )
        ):
            raise ManifestError(
                f"manifest symbols.{name} must be [lo, hi] (integers; hi may be null), "
                f"got {value!r}"
            )
        out[name] = (value[0], value[1])
    return out


def _dtype(r: _Reader, where: str) -> str:
    dtype = r.text("dtype")
    if dtype not in DTYPES:
        raise ManifestError(
            f"manifest {where}.dtype {dtype!r} is not supported; "
            f"expected one of {', '.join(DTYPES)}"
        )
    return dtype


class _Reader:
    """Typed access to one JSON object, with errors that name the field."""

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, dict):
            raise ManifestError(
                f"manifest {where} must be a JSON object, got {type(data).__name__}"
            )
        self.data: dict[str, Any] = data
        self.where = where

    def _get(self, key: str, kind: type | tuple[type, ...], default: object = ...) -> Any:
        if key not in self.data:
            if default is ...:
                raise ManifestError(f"manifest {self.where} lacks the required key '{key}'")
            return default
        value = self.data[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            raise ManifestError(
                f"manifest {self.where}.{key} must be {names}, got {type(value).__name__}"
            )
        return value

    def text(self, key: str) -> str:
        return self._get(key, str)

    def integer(self, key: str) -> int:
        return self._get(key, int)

    def items(self, key: str, default: list[Any] | None = None) -> list[Any]:
        return self._get(key, list, ... if default is None else default)

    def optional_str(self, key: str) -> str | None:
        return self._get(key, str, None)

    def optional_int(self, key: str, default: int) -> int:
        return self._get(key, int, default)

    def optional_obj(self, key: str) -> _Reader | None:
        value = self._get(key, dict, None)
        return None if value is None else _Reader(value, f"{self.where}.{key}")


def with_op_types(manifest: Manifest, op_types: Mapping[str, str]) -> Manifest:
    """The manifest with each timed call's ONNX op types (node name -> op type) recorded."""
    items = manifest.extra.get(PROFILE_KEY)
    if not items:
        return manifest
    named = [
        {**d, "op_types": list(dict.fromkeys(op_types[n] for n in d["nodes"] if n in op_types))}
        for d in items
    ]
    return replace(manifest, extra={**manifest.extra, PROFILE_KEY: named})
