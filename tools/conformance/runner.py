"""ONNX backend conformance: run one ONNX node test case through mlc and classify the outcome.

    from tools.conformance.cases import generate_cases
    result = run_case(generate_cases()["test_relu"])    # in this process
    result.status                                       # passed | failed | unsupported | error

A case goes through mlc's whole path: `from_onnx` -> `build` -> JIT -> `GraphModule.run`, and
every output is compared with the case's expected output the way ONNX's backend runner does
(`onnx.backend.test.runner.Runner.assert_similar_outputs`): same number of outputs, equal
shapes, equal dtypes, then `np.testing.assert_allclose(got, expected, rtol, atol)` with the
case's tolerances (NaN equals NaN, an infinity only equals the same infinity; bfloat16 gets
rtol >= 2**-6; object arrays must be equal).

Outcomes:
  * `passed`: every output of every data set matches.
  * `failed`: mlc ran the model but an output differs in count, shape, dtype or value
    (`max_abs_error` is recorded for value differences).
  * `unsupported`: mlc declined the model cleanly: `UnsupportedOpError` (ops, opsets, dtypes,
    attributes, non-constant inputs it needs at import), `ModelLoadError`, or a lowering
    `PassFailedError` whose diagnostics say the feature is not supported.
  * `error`: anything else: another exception (a bug), an internal error or invalid IR inside
    a pass; `pool` adds crashes and timeouts of the worker process.

`run_case` never raises for a problem of the case; a case that crashes the process is why
`pool` runs cases in worker processes.

Constant inputs: mlc compiles for static shapes, so inputs that decide shapes or attributes
(Reshape's shape, Reduce*'s axes, Slice's starts ...) must be constants, and many cases feed
them as graph inputs: those cases are `unsupported` as they stand. `run_conformance_case`
then runs the case a second time with exactly those inputs (named by mlc's error) turned into
initializers holding the case's own values, and records that run as the result's `variant`.
The case's status stays the one of the unchanged model; the variant says whether the
converter computes the right values when mlc's documented requirement is met.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from mlc.errors import ModelLoadError, PassFailedError, UnsupportedOpError
from mlc.frontend.onnx.plan import IMPORT_COMPUTED

from .cases import Case

if TYPE_CHECKING:
    from mlc.compiler import BuildOptions

Status = Literal["passed", "failed", "unsupported", "error"]
STATUSES: tuple[Status, ...] = ("passed", "failed", "unsupported", "error")
Stage = Literal["import", "build", "jit", "run", "compare", "worker"]
MESSAGE_LIMIT = 4000
BFLOAT16_RTOL = 2.0**-6  # ONNX's runner: two bfloat16 ULPs


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one case (a JSON object in `docs/conformance_results.json`)."""

    name: str
    op_type: str
    expanded: bool
    status: Status
    stage: Stage
    """Where the case ended: the stage that raised, `compare` for passed/failed cases."""
    message: str = ""
    """Why it did not pass (empty when passed)."""
    max_abs_error: float | None = None
    """Largest |got - expected| over elements finite in both, for value mismatches."""
    duration: float = 0.0
    """Seconds spent on the case (import to comparison); printed, not written to the results
    file (which must not change when a rerun changes nothing but timings)."""
    constant_inputs: tuple[str, ...] = ()
    """Graph inputs that were turned into initializers for this run (empty: the case as is)."""
    variant: CaseResult | None = None
    """The rerun with `variant.constant_inputs` constant, when the case as is needed them."""
    element_types: tuple[str, ...] = ()
    """What the case's graph inputs, outputs and initializers are (`cases.element_types`);
    filled by ``python -m tools.conformance`` for the report."""

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        del out["duration"]
        out["constant_inputs"] = list(self.constant_inputs)
        out["variant"] = self.variant.to_json() if self.variant is not None else None
        out["element_types"] = list(self.element_types)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CaseResult:
        fields = dict(data)
        fields.pop("duration", None)
        fields["constant_inputs"] = tuple(fields.get("constant_inputs", ()))
        fields["element_types"] = tuple(fields.get("element_types", ()))
        variant = fields.get("variant")
        fields["variant"] = cls.from_json(variant) if variant is not None else None
        return cls(**fields)

    @property
    def passes(self) -> bool:
        """Passed as is, or with its constant-inputs variant."""
        return self.status == "passed" or (
            self.variant is not None and self.variant.status == "passed"
        )

    @property
    def reason(self) -> str:
        """The first line of the message, for one-line listings."""
        return self.message.strip().splitlines()[0] if self.message.strip() else ""


# -- comparing outputs ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Mismatch:
    message: str
    max_abs_error: float | None = None


def compare_outputs(
    expected: Sequence[Any], got: Sequence[np.ndarray], rtol: float, atol: float
) -> Mismatch | None:
    """None when `got` matches `expected` under ONNX's runner rules, else what differs first."""
    if len(got) != len(expected):
        return Mismatch(f"mlc returns {len(got)} outputs, the case expects {len(expected)}")
    for i, (want, have) in enumerate(zip(expected, got)):
        if isinstance(want, (list, tuple)) or want is None:
            return Mismatch(
                f"output {i}: the case expects a {type(want).__name__} (sequence or "
                "optional), mlc returns a tensor"
            )
        want = np.asarray(want)
        if tuple(have.shape) != tuple(want.shape):
            return Mismatch(f"output {i} has shape {list(have.shape)}, expected {list(want.shape)}")
        if want.dtype == object:
            if not np.array_equal(have, want):
                return Mismatch(f"output {i}: object (string) values differ")
            continue
        if have.dtype != want.dtype:
            return Mismatch(f"output {i} has dtype {have.dtype}, expected {want.dtype}")
        out_rtol = rtol
        if want.dtype.name == "bfloat16":
            out_rtol = max(rtol, BFLOAT16_RTOL)
            have, want = have.astype(np.float32), want.astype(np.float32)
        try:
            np.testing.assert_allclose(have, want, rtol=out_rtol, atol=atol)
        except AssertionError:
            return _value_mismatch(i, have, want, out_rtol, atol)
    return None


def _value_mismatch(
    i: int, have: np.ndarray, want: np.ndarray, rtol: float, atol: float
) -> Mismatch:
    """Describe a value mismatch: how many elements, the largest error, NaN/Inf disagreements."""
    with np.errstate(all="ignore"):
        h = have.astype(np.float64)
        w = want.astype(np.float64)
        both_finite = np.isfinite(h) & np.isfinite(w)
        special = ~both_finite & ~((np.isnan(h) & np.isnan(w)) | (h == w))
        err = np.where(both_finite, np.abs(h - w), 0.0)
        bad = special | (both_finite & (err > atol + rtol * np.abs(w)))
    count = int(bad.sum())
    parts = [f"output {i}: {count} of {want.size} elements differ (rtol={rtol:g}, atol={atol:g})"]
    max_err: float | None = None
    if both_finite.any():
        flat = int(np.argmax(err))
        max_err = float(err.reshape(-1)[flat])
        index = tuple(int(k) for k in np.unravel_index(flat, want.shape)) if want.ndim else ()
        parts.append(
            f"max abs error {max_err:.6g} at {list(index)}: got "
            f"{have.reshape(-1)[flat]!r}, expected {want.reshape(-1)[flat]!r}"
        )
    if special.any():
        parts.append(f"{int(special.sum())} NaN/Inf positions disagree")
    if max_err is not None and not math.isfinite(max_err):
        max_err = None
    return Mismatch("; ".join(parts), max_err)


# -- classifying errors --------------------------------------------------------------------------
_UNSUPPORTED_WORDS = ("not supported", "unsupported")
_BUG_WORDS = ("internal error", "does not verify", "invalid ir")


def classify_exception(error: BaseException) -> tuple[Status, str]:
    """(`unsupported` | `error`, message) for an exception raised while running a case."""
    text = str(error).strip() or type(error).__name__
    if isinstance(error, (UnsupportedOpError, ModelLoadError)):
        return "unsupported", text
    if isinstance(error, PassFailedError):
        lowered = text.lower()
        if any(w in lowered for w in _UNSUPPORTED_WORDS) and not any(
            w in lowered for w in _BUG_WORDS
        ):
            return "unsupported", text
    return "error", f"{type(error).__name__}: {text}"


# -- running one case -----------------------------------------------------------------------------
def run_conformance_case(case: Case, *, options: BuildOptions | None = None) -> CaseResult:
    """`run_case` as is; when mlc needs some graph inputs to be constant, also the variant with
    them constant (accumulating names while each rerun asks for another input).

    No variant makes every graph input constant: mlc would then fold the whole model at import
    (with `onnx.reference`) and compile nothing. Except for generators (Range, ConstantOfShape,
    the windows ...): mlc's own converters compute those at import, never `onnx.reference`.
    """
    result = run_case(case, options=options)
    inputs = set(_graph_inputs(case))
    frozen: list[str] = []
    variant = result
    while variant.status == "unsupported":
        wanted = [
            n for n in needed_constant_inputs(variant.message) if n in inputs and n not in frozen
        ]
        every_input = len(frozen) + len(wanted) >= len(inputs)
        if not wanted or (every_input and not generators_only(case)):
            break
        frozen += wanted
        variant = run_case(case, constant_inputs=frozen, options=options)
    return result if not frozen else replace(result, variant=variant)


def generators_only(case: Case) -> bool:
    """Every node is one whose converter computes its value at import (`IMPORT_COMPUTED`)."""
    return all(
        node.op_type in IMPORT_COMPUTED and node.domain in ("", "ai.onnx")
        for node in case.model.graph.node
    )


_NEEDS_CONSTANT = re.compile(r"\('([^']+)'\) must be computable at import time")


def needed_constant_inputs(message: str) -> list[str]:
    """Values mlc says must be constant (`... ('axes') must be computable at import time`)."""
    return list(dict.fromkeys(_NEEDS_CONSTANT.findall(message)))


def with_constant_inputs(case: Case, names: Sequence[str]) -> Case:
    """`case` with the graph inputs `names` given as initializers holding the case's values.

    The inputs stay declared in `graph.input` (an initializer then gives their value, valid in
    every IR version); the data sets no longer feed them.
    """
    from onnx import numpy_helper

    order = _graph_inputs(case)
    missing = [n for n in names if n not in order]
    if missing:
        raise ValueError(f"{case.name}: {missing} are not graph inputs (inputs: {order})")
    keep = [i for i, n in enumerate(order) if n not in names]
    model = type(case.model)()
    model.CopyFrom(case.model)
    first_inputs = case.data_sets[0][0]
    for i, n in enumerate(order):
        if n in names:
            values = [ins[i] for ins, _ in case.data_sets]
            if not all(np.array_equal(values[0], v) for v in values[1:]):
                raise ValueError(f"{case.name}: input '{n}' differs between data sets")
            model.graph.initializer.append(numpy_helper.from_array(np.asarray(first_inputs[i]), n))
    data = tuple((tuple(ins[i] for i in keep), outs) for ins, outs in case.data_sets)
    return replace(case, model=model, data_sets=data)


def run_case(
    case: Case, *, constant_inputs: Sequence[str] = (), options: BuildOptions | None = None
) -> CaseResult:
    """Import, build, JIT and run `case` in this process (with `constant_inputs` given as
    initializers); compare; classify. Never raises for a problem of the case
    (KeyboardInterrupt and SystemExit still propagate)."""
    import mlc
    from mlc.runtime import GraphModule

    start = time.perf_counter()
    stage: Stage = "import"

    def result(status: Status, message: str = "", max_abs_error: float | None = None) -> CaseResult:
        return CaseResult(
            case.name,
            case.op_type,
            case.expanded,
            status,
            stage,
            message[:MESSAGE_LIMIT],
            max_abs_error,
            time.perf_counter() - start,
            tuple(constant_inputs),
        )

    if constant_inputs:
        case = with_constant_inputs(case, constant_inputs)
    try:
        module, params = mlc.from_onnx(case.model, shape_dict=_dynamic_input_shapes(case))
        stage = "build"
        lib = mlc.build(module, params, options=options)
        stage = "jit"
        gm = GraphModule(lib.jit())
        for k, (inputs, expected) in enumerate(case.data_sets):
            stage = "run"
            got = _execute(gm, case, inputs)
            stage = "compare"
            mismatch = compare_outputs(expected, got, case.rtol, case.atol)
            if mismatch is not None:
                where = f"data set {k}: " if len(case.data_sets) > 1 else ""
                return result("failed", where + mismatch.message, mismatch.max_abs_error)
    except Exception as e:  # noqa: BLE001 - every failure of a case is a result, not a crash
        status, message = classify_exception(e)
        return result(status, message)
    return result("passed")


def _graph_inputs(case: Case) -> list[str]:
    graph = case.model.graph
    initializers = {init.name for init in graph.initializer}
    return [i.name for i in graph.input if i.name not in initializers]


def _dynamic_input_shapes(case: Case) -> dict[str, list[int]] | None:
    """Static shapes, from the first data set, for graph inputs whose declared shape is not."""
    if not case.data_sets:
        return None
    by_name = dict(zip(_graph_inputs(case), case.data_sets[0][0]))
    shapes: dict[str, list[int]] = {}
    for info in case.model.graph.input:
        value = by_name.get(info.name)
        if not isinstance(value, np.ndarray) or not info.type.HasField("tensor_type"):
            continue
        tensor = info.type.tensor_type
        static = tensor.HasField("shape") and all(
            d.HasField("dim_value") and d.dim_value >= 0 for d in tensor.shape.dim
        )
        if not static:
            shapes[info.name] = [int(d) for d in value.shape]
    return shapes or None


def _execute(gm: Any, case: Case, inputs: Sequence[Any]) -> list[np.ndarray]:
    """Set the module's inputs from the case's (by graph input name), run, read every output.

    mlc may drop a graph input that no output depends on; such inputs are not set.
    """
    from mlc.errors import RuntimeInputError

    by_name = dict(zip(_graph_inputs(case), inputs))
    for name in gm.get_input_info():
        if name not in by_name:
            raise RuntimeInputError(
                f"the compiled module has input '{name}', which the case does not provide"
            )
        gm.set_input(name, by_name[name])
    gm.run()
    return [gm.get_output(i) for i in range(gm.get_num_outputs())]
