"""The ONNX backend node test cases, as the conformance harness (`conformance.py`) runs them.

The cases come from the installed `onnx` wheel: `onnx.backend.test.case.node.collect_testcases`
builds every case in memory (the wheel ships no `data/node` directory). Many case generators
draw from numpy's global random state, so `generate_cases` seeds it first: with the same onnx
version, every process gets the same inputs and expected outputs.

A case can be written to and read back from a directory in ONNX's own on-disk layout
(`<case>/model.onnx`, `<case>/data.json`, `<case>/test_data_set_<k>/{input,output}_<j>.pb`),
which is how worker processes receive their cases. `data.json` carries the tolerances, as in
ONNX's loader, plus the op type the case belongs to.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import onnx

# ONNX's default tolerances (`onnx.backend.test.loader`, `case.node.expect`).
DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-7
# Numpy's global seed for the case generators (they use np.random.* without their own seed).
CASE_SEED = 0
EXPANDED_MARK = "_expanded"
DEFAULT_DOMAINS = ("", "ai.onnx")

DataSet = tuple[tuple[Any, ...], tuple[Any, ...]]


@dataclass(frozen=True)
class Case:
    """One node test case: a model, its data sets (inputs, expected outputs), tolerances."""

    name: str
    op_type: str
    """The ONNX op the case tests (`Add`, `ai.onnx.ml.LabelEncoder`)."""
    expanded: bool
    """The model is the op's function body expanded into other ops (name has `_expanded`)."""
    model: onnx.ModelProto
    data_sets: tuple[DataSet, ...]
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL


def op_label(node: onnx.NodeProto) -> str:
    return node.op_type if node.domain in DEFAULT_DOMAINS else f"{node.domain}.{node.op_type}"


def element_types(model: onnx.ModelProto) -> tuple[str, ...]:
    """The kinds of value a case's graph takes, holds and returns, sorted: the ONNX element type
    name of every tensor graph input, output and initializer (`float`, `uint8` ...), and the
    value kind of the others (`sequence_type`, `optional_type`, `map_type` ...)."""
    from mlc.frontend.onnx.dtypes import onnx_type_name

    graph = model.graph
    kinds = {onnx_type_name(init.data_type) for init in graph.initializer}
    for info in [*graph.input, *graph.output]:
        kind = info.type.WhichOneof("value")
        if kind == "tensor_type":
            kinds.add(onnx_type_name(info.type.tensor_type.elem_type))
        else:
            kinds.add(str(kind))
    return tuple(sorted(kinds))


def base_case_name(name: str) -> str | None:
    """`test_gelu_tanh_1_expanded_ver18` -> `test_gelu_tanh_1`; None for an unexpanded case."""
    at = name.find(EXPANDED_MARK)
    return name[:at] if at >= 0 else None


@cache
def generate_cases() -> dict[str, Case]:
    """Every node case of the installed onnx, by name (generated once per process, seeded).

    ONNX registers cases in a process-wide list when its case modules are first imported, so
    the seed only takes effect if nothing in this process collected them before.
    """
    import warnings

    from onnx.backend.test.case import node

    if node._NodeTestCases:  # noqa: SLF001 - the registry ONNX fills on import
        raise RuntimeError(
            "onnx's node test cases were generated earlier in this process, without "
            "mlc's seed: their data would not match the committed lists"
        )
    collect_testcases = node.collect_testcases
    state = np.random.get_state()
    np.random.seed(CASE_SEED)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the generators overflow and divide by zero on purpose
            collected = collect_testcases(None)
    finally:
        np.random.set_state(state)
    single = {
        c.name: op_label(c.model.graph.node[0]) for c in collected if base_case_name(c.name) is None
    }
    cases: dict[str, Case] = {}
    for c in collected:
        base = base_case_name(c.name)
        assert c.model is not None and c.data_sets is not None, c.name
        assert base is not None or len(c.model.graph.node) == 1, f"{c.name}: one node expected"
        op_type = single[base] if base is not None else single[c.name]
        data = tuple(
            (tuple(_normalize(x) for x in ins), tuple(_normalize(x) for x in outs))
            for ins, outs in c.data_sets
        )
        cases[c.name] = Case(c.name, op_type, base is not None, c.model, data, c.rtol, c.atol)
    return cases


def cached_cases(cache_dir: pathlib.Path) -> dict[str, Case]:
    """`generate_cases()`, kept in `cache_dir` as a pickle keyed by what the data depends on (the
    onnx and numpy versions, the seed, this module's source): a later process loads it in a
    fraction of a second instead of regenerating (~12 s). A stale or broken file is replaced."""
    import hashlib
    import os
    import pickle

    import onnx

    source = pathlib.Path(__file__).read_bytes()
    key = hashlib.sha256(
        b"|".join(
            [onnx.__version__.encode(), np.__version__.encode(), str(CASE_SEED).encode(), source]
        )
    ).hexdigest()[:16]
    path = cache_dir / f"cases-{key}.pickle"
    if path.is_file():
        try:
            return pickle.loads(path.read_bytes())  # noqa: S301 - a file this function wrote
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
            pass
    cases = generate_cases()
    for old in cache_dir.glob("cases-*.pickle"):
        old.unlink(missing_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    partial.write_bytes(pickle.dumps(cases, protocol=pickle.HIGHEST_PROTOCOL))
    os.replace(partial, path)  # atomic: a concurrent reader sees the old file or the whole new one
    return cases


def _normalize(value: Any) -> Any:
    """Tensors as numpy arrays (ONNX gives some as TensorProto or numpy scalars)."""
    import onnx
    from onnx import numpy_helper

    if isinstance(value, onnx.TensorProto):
        return numpy_helper.to_array(value)
    if isinstance(value, np.generic):
        return np.asarray(value)
    if isinstance(value, list):
        return [_normalize(v) for v in value]
    return value


# -- on-disk layout --------------------------------------------------------------------------------
def write_case(case: Case, root: pathlib.Path) -> pathlib.Path:
    """Write `case` under `root/<name>` in ONNX's test-data layout; returns the directory."""
    from onnx import numpy_helper

    out = root / case.name
    out.mkdir(parents=True, exist_ok=False)
    (out / "model.onnx").write_bytes(case.model.SerializeToString())
    meta = {
        "rtol": case.rtol,
        "atol": case.atol,
        "op_type": case.op_type,
        "expanded": case.expanded,
    }
    (out / "data.json").write_text(json.dumps(meta, sort_keys=True))
    graph = case.model.graph
    for k, (inputs, outputs) in enumerate(case.data_sets):
        data_dir = out / f"test_data_set_{k}"
        data_dir.mkdir()
        for prefix, values, infos in (
            ("input", inputs, graph.input),
            ("output", outputs, graph.output),
        ):
            for j, value in enumerate(values):
                kind = infos[j].type.WhichOneof("value")
                if kind == "sequence_type":
                    proto = numpy_helper.from_list(value, infos[j].name)
                elif kind == "optional_type":
                    proto = numpy_helper.from_optional(value, infos[j].name)
                elif kind == "map_type":
                    proto = numpy_helper.from_dict(value, infos[j].name)
                else:
                    proto = numpy_helper.from_array(np.asarray(value), infos[j].name)
                (data_dir / f"{prefix}_{j}.pb").write_bytes(proto.SerializeToString())
    return out


def read_case(path: pathlib.Path) -> Case:
    """A case directory in ONNX's layout (written by `write_case`, or ONNX's own data dirs).

    Without `op_type` in `data.json` the op is the model's single node (or `?`).
    """
    import onnx

    model = onnx.load_model_from_string((path / "model.onnx").read_bytes())
    meta_path = path / "data.json"
    meta: dict[str, Any] = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    graph = model.graph
    data_sets = []
    for data_dir in sorted(
        path.glob("test_data_set_*"), key=lambda p: int(p.name.rsplit("_", 1)[1])
    ):
        inputs = _read_values(data_dir, "input", graph.input)
        outputs = _read_values(data_dir, "output", graph.output)
        data_sets.append((inputs, outputs))
    op_type = meta.get("op_type") or (op_label(graph.node[0]) if len(graph.node) == 1 else "?")
    expanded = bool(meta.get("expanded", base_case_name(path.name) is not None))
    return Case(
        path.name,
        op_type,
        expanded,
        model,
        tuple(data_sets),
        float(meta.get("rtol", DEFAULT_RTOL)),
        float(meta.get("atol", DEFAULT_ATOL)),
    )


def _read_values(
    data_dir: pathlib.Path, prefix: str, infos: Sequence[onnx.ValueInfoProto]
) -> tuple[Any, ...]:
    import onnx
    from onnx import numpy_helper

    count = len(list(data_dir.glob(f"{prefix}_*.pb")))
    values = []
    for j in range(count):
        raw = (data_dir / f"{prefix}_{j}.pb").read_bytes()
        kind = infos[j].type.WhichOneof("value")
        if kind == "sequence_type":
            seq = onnx.SequenceProto()
            seq.ParseFromString(raw)
            values.append(numpy_helper.to_list(seq))
        elif kind == "optional_type":
            opt = onnx.OptionalProto()
            opt.ParseFromString(raw)
            values.append(numpy_helper.to_optional(opt))
        elif kind == "map_type":
            mapping = onnx.MapProto()
            mapping.ParseFromString(raw)
            values.append(numpy_helper.to_dict(mapping))
        else:
            tensor = onnx.TensorProto()
            tensor.ParseFromString(raw)
            values.append(numpy_helper.to_array(tensor))
    return tuple(values)
