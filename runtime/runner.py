"""`run_module(RunOptions) -> RunResult`: the library call behind `mlc run` (tvmc's run_module).

Load a package (or bare `.so`), make its inputs (from an .npz; missing ones filled with zeros,
ones or seeded random values), run it once or benchmark it, and optionally rank the classes of
the first output and compare every output against the source model in onnxruntime.
"""

from __future__ import annotations

import enum
import pathlib
from dataclasses import dataclass, field

import numpy as np

from mlc import progress
from mlc.contract import Manifest, TensorSpec
from mlc.errors import RuntimeInputError
from mlc.files import check_input_file, check_output_file
from mlc.npz import NpzError, read_npz, write_npz
from mlc.runtime.benchmark import BenchmarkResult
from mlc.runtime.graph_module import GraphModule
from mlc.runtime.package import load_module
from mlc.runtime.profile import Profile
from mlc.runtime.shapes import SymbolicShapes
from mlc.runtime.verify import VerifyReport
from mlc.symbolic import free_symbols


class _ParsedEnum(enum.Enum):
    @classmethod
    def parse(cls, value: object) -> _ParsedEnum:
        """Accept a member or its value, case-insensitively; ValueError lists the choices."""
        if isinstance(value, cls):
            return value
        for member in cls:
            if isinstance(value, str) and value.lower() == member.value:
                return member
        raise ValueError(
            f"invalid {cls.__name__} {value!r}; choose one of {', '.join(m.value for m in cls)}"
        )


class FillMode(_ParsedEnum):
    """How inputs missing from --inputs are made: random is uniform in [0, 1) for floats,
    integers in [0, 10), and fair coin flips for bool, from a generator seeded with `seed`."""

    ZEROS = "zeros"
    ONES = "ones"
    RANDOM = "random"


class VerifyBackend(_ParsedEnum):
    ONNXRUNTIME = "onnxruntime"


@dataclass(frozen=True)
class RunOptions:
    """Everything `mlc run` can be asked to do; enum fields also accept their string values."""

    package: pathlib.Path
    inputs: pathlib.Path | None = None
    """An .npz whose arrays are keyed by input name."""
    output: pathlib.Path | None = None
    """Where to write the outputs (.npz keyed by output name)."""
    fill_mode: FillMode = FillMode.RANDOM
    seed: int = 0
    benchmark: bool = False
    """Time the module (repeat x number runs) instead of running it once."""
    repeat: int = 1
    number: int = 1
    min_repeat_ms: float = 0.0
    end_to_end: bool = False
    top: int = 0
    """Rank the classes of the first output and keep the best `top` (0: do not)."""
    labels: pathlib.Path | None = None
    verify: VerifyBackend | None = None
    verify_model: pathlib.Path | None = None
    verify_atol: float = 1e-4
    verify_rtol: float = 1e-3
    profile: int = 0
    """Read the kernel timers (a module compiled with them) over this many runs (0: do not)."""
    input_shapes: dict[str, list[int]] | None = None
    """Shapes of the inputs to fill (a module with symbolic dims: the sizes to run at)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "fill_mode", FillMode.parse(self.fill_mode))
        if self.verify is not None:
            object.__setattr__(self, "verify", VerifyBackend.parse(self.verify))
        for name in ("repeat", "number"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("top", "profile", "min_repeat_ms", "verify_atol", "verify_rtol"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.labels is not None and self.top == 0:
            raise ValueError("labels are only used with top > 0 (--print-top N)")
        if self.verify_model is not None and self.verify is None:
            raise ValueError("verify_model needs verify (--verify onnxruntime)")


@dataclass(frozen=True)
class TopEntry:
    rank: int
    index: int
    probability: float
    label: str | None


@dataclass(frozen=True)
class TopResult:
    output: str
    softmax_applied: bool
    entries: tuple[TopEntry, ...]
    batch: int = 1
    """Items in the output's batch (axis 0); the classes ranked are those of the first."""


@dataclass
class RunResult:
    manifest: Manifest
    inputs: dict[str, np.ndarray]
    input_sources: dict[str, str]
    """Per input: 'file' or the fill mode used."""
    outputs: dict[str, np.ndarray]
    timing: BenchmarkResult | None = None
    top: TopResult | None = None
    verify: VerifyReport | None = None
    written: pathlib.Path | None = field(default=None)
    profile: Profile | None = None


def run_module(options: RunOptions) -> RunResult:
    if options.output is not None:
        check_output_file(options.output, "output file")
    if options.labels is not None:
        check_input_file(options.labels, "labels file")
    with progress.stage(f"loading {options.package}"):
        gm = GraphModule(load_module(options.package))
    manifest = gm.manifest
    inputs, sources = make_inputs(manifest, options)
    gm.set_input(**inputs)
    result = RunResult(manifest, inputs, sources, {})
    if options.benchmark:
        with progress.stage("timing"):
            result.timing = gm.benchmark(
                number=options.number,
                repeat=options.repeat,
                min_repeat_ms=options.min_repeat_ms,
                end_to_end=options.end_to_end,
            )
    else:
        with progress.stage("running"):
            gm.run()
    result.outputs = {s.name: gm.get_output(i) for i, s in enumerate(manifest.outputs)}
    if options.profile:
        with progress.stage("profiling the kernels"):
            result.profile = gm.profile(number=options.profile)
    if options.output is not None:
        write_npz(options.output, result.outputs)
        result.written = options.output
    if options.top:
        labels = read_labels(options.labels) if options.labels is not None else None
        first = manifest.outputs[0].name
        result.top = top_k(first, result.outputs[first], options.top, labels)
    if options.verify is VerifyBackend.ONNXRUNTIME:
        from mlc.runtime.verify import verify_onnxruntime

        with progress.stage("running the source model in onnxruntime"):
            result.verify = verify_onnxruntime(
                manifest,
                inputs,
                result.outputs,
                model=options.verify_model,
                atol=options.verify_atol,
                rtol=options.verify_rtol,
            )
    return result


def make_inputs(
    manifest: Manifest, options: RunOptions
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Inputs from the .npz (pickle disabled; unknown names are an error), the rest filled."""
    given: dict[str, np.ndarray] = {}
    if options.inputs is not None:
        try:
            given = read_npz(options.inputs, "--inputs")
        except NpzError as e:
            raise RuntimeInputError(str(e)) from None
        names = [s.name for s in manifest.inputs]
        unknown = sorted(set(given) - set(names))
        if unknown:
            raise RuntimeInputError(
                f"{options.inputs} has arrays {', '.join(unknown)} that are not "
                f"inputs of the module {manifest.signature()}"
            )
    shapes = fill_shapes(manifest, given, options.input_shapes or {})
    rng = np.random.default_rng(options.seed)
    inputs, sources = {}, {}
    for spec in manifest.inputs:
        if spec.name in given:
            inputs[spec.name], sources[spec.name] = given[spec.name], "file"
        else:
            inputs[spec.name] = fill(spec, options.fill_mode, rng, shapes[spec.name])
            sources[spec.name] = options.fill_mode.value
    return inputs, sources


def fill_shapes(
    manifest: Manifest, given: dict[str, np.ndarray], requested: dict[str, list[int]]
) -> dict[str, tuple[int, ...]]:
    """The shape of every input not given: its static shape, the one requested
    (`--input-shapes`), or its dims evaluated with the symbols the other inputs bind."""
    names = [s.name for s in manifest.inputs]
    for name in requested:
        if name not in names:
            raise RuntimeInputError(
                f"--input-shapes names '{name}', not an input of the module {manifest.signature()}"
            )
        if name in given:
            raise RuntimeInputError(
                f"--input-shapes gives a shape for '{name}', which --inputs also gives; "
                "drop one of them"
            )
    known = {names.index(n): tuple(v.shape) for n, v in given.items()}
    known |= {names.index(n): tuple(dims) for n, dims in requested.items()}
    env = SymbolicShapes(manifest).bind(known) if not manifest.is_static else {}
    shapes = {}
    for i, spec in enumerate(manifest.inputs):
        if spec.name in given:
            continue
        if i in known:
            shapes[spec.name] = known[i]
            continue
        try:
            shapes[spec.name] = spec.shape_at(env)
        except KeyError:
            missing = sorted(set().union(*map(free_symbols, spec.dims())) - env.keys())
            example = ",".join(str(d) if isinstance(d, int) else "N" for d in spec.shape)
            raise RuntimeInputError(
                f"input '{spec.name}' ({spec.describe()}) has the symbolic dim "
                f"{', '.join(repr(m) for m in missing)} that no given input fixes: give its "
                f'size with --input-shapes "{spec.name}:[{example}]" (or the input in --inputs)'
            ) from None
    return shapes


def fill(
    spec: TensorSpec,
    mode: FillMode,
    rng: np.random.Generator,
    shape: tuple[int, ...] | None = None,
) -> np.ndarray:
    """An input of `spec` (at `shape`, for a spec with symbolic dims) made as `mode` says."""
    dtype = np.dtype(spec.dtype)
    shape = tuple(spec.shape) if shape is None else shape  # type: ignore[arg-type]
    if mode is FillMode.ZEROS:
        return np.zeros(shape, dtype)
    if mode is FillMode.ONES:
        return np.ones(shape, dtype)
    if dtype.kind == "f":
        return rng.random(shape).astype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    return rng.integers(0, 10, size=shape).astype(dtype)


def read_labels(path: pathlib.Path) -> list[str]:
    try:
        return path.read_text().splitlines()
    except OSError as e:
        raise RuntimeInputError(f"cannot read --labels {path}: {e}") from None


def is_distribution(values: np.ndarray, tol: float = 1e-3) -> bool:
    """All values in [0, 1] and summing to 1 (within tol): already probabilities."""
    return bool(
        values.size
        and values.min() >= 0
        and values.max() <= 1
        and abs(float(values.sum()) - 1.0) <= tol
    )


def class_scores(name: str, output: np.ndarray) -> tuple[np.ndarray, int]:
    """(scores of the first batch item, batch size). Axis 0 is the batch when the output has
    more than one axis; the other axes must hold one class axis at most (`[N, C]`,
    `[N, C, 1, 1]`); a 1-D output is one item's classes."""
    if output.ndim <= 1:
        return output.reshape(-1), 1
    rest = output.shape[1:]
    if sum(d != 1 for d in rest) > 1:
        shape = ",".join(str(d) for d in output.shape)
        raise RuntimeInputError(
            f"output '{name}' has shape [{shape}]: --print-top ranks one class axis after the "
            "batch axis ([N, C] or [N, C, 1, 1])"
        )
    return output.reshape(output.shape[0], -1)[0], output.shape[0]


def top_k(name: str, output: np.ndarray, k: int, labels: list[str] | None) -> TopResult:
    """The `k` most probable classes of `output` (the first item of a batch, `class_scores`).
    Softmax is applied unless the scores already are a probability distribution."""
    scores, batch = class_scores(name, output.astype(np.float64))
    if scores.size == 0:
        raise RuntimeInputError(f"output '{name}' is empty; nothing to rank")
    applied = not is_distribution(scores)
    if applied:
        e = np.exp(scores - scores.max())
        scores = e / e.sum()
    if labels is not None and len(labels) < scores.size:
        raise RuntimeInputError(
            f"the labels file has {len(labels)} lines; output '{name}' has {scores.size} classes"
        )
    order = np.argsort(-scores, kind="stable")[:k]
    return TopResult(
        name,
        applied,
        tuple(
            TopEntry(rank + 1, int(i), float(scores[i]), labels[i] if labels is not None else None)
            for rank, i in enumerate(order)
        ),
        batch,
    )
