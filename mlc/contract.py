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
    """One input or output: its name, static shape and numpy dtype name."""

    name: str
    shape: tuple[int, ...]
    dtype: str

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * np.dtype(self.dtype).itemsize  # no int64 overflow

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
    flops: int
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
                int(d["flops"]),
                tuple(str(t) for t in d.get("op_types", ())),
            )
            for d in items
        )
    except (KeyError, TypeError, ValueError) as e:
        raise ManifestError(f"manifest '{PROFILE_KEY}' is malformed: {e}") from None


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
    return ParamSpec(r.text("name"), _shape(r, where), _dtype(r, where), r.integer("offset"))


def _shape(r: _Reader, where: str) -> tuple[int, ...]:
    dims = r.items("shape")
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in dims):
        raise ManifestError(
            f"manifest {where}.shape must be a list of non-negative integers "
            f"(static shapes only), got {dims!r}"
        )
    return tuple(dims)


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
