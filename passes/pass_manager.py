"""`mlc.PassManager`: mlc and upstream passes in one pipeline, in MLIR's textual syntax.

    pm = mlc.PassManager.parse("builtin.module(graph-verify,func.func(canonicalize,cse))")
    pm.add("mlc-dce")
    pm.run(module)            # raises PassFailedError with formatted diagnostics

Verification after every pass is on by default: MLIR's verifier, plus mlc's own checks of the
graph and tp dialects (shape rules, schedules) after each mlc pass. Three exceptions, none of
which lets unverified IR reach a pass: a run of upstream passes is verified where it ends; a
pass that only inspects the IR (`checks_only`) is not followed by a verification when its input
was verified; and mlc's dialect checks are skipped once the module holds no graph or tp op and
the pass cannot create any (`emits_mlc_dialects`).
"""

from __future__ import annotations

import os
import pathlib
import re
import sys
import time
import traceback
from collections.abc import Iterator

from mlir import ir

from mlc import progress
from mlc.dialects.graph.verify import symbol_bounds
from mlc.errors import DiagnosticError, MlcError, PassFailedError
from mlc.symbolic import UndecidableError, assume

from ._mlir_adapter import print_ir_dump, run_upstream
from .base import ModulePass, PassContext
from .diagnostics import Diag, diags_of_error
from .pipeline import (
    MODULE_ANCHOR,
    Element,
    Nest,
    PassEntry,
    Pipeline,
    parse_elements,
    parse_pipeline,
)


def verify_mlc_dialects(op: ir.Operation) -> list[DiagnosticError]:
    """mlc's semantic checks of both dialects (what IRDL cannot express)."""
    return _check_mlc_dialects(op)[0]


def _check_mlc_dialects(op: ir.Operation) -> tuple[list[DiagnosticError], bool]:
    """The checks' errors, and whether the module holds any graph or tp op."""
    from mlc.dialects.graph.verify import verify_graph
    from mlc.dialects.tp.verify import verify_tp
    from mlc.dialects.walk import ops_named

    ours = ops_named(op, ("graph.", "tp."))  # one walk for both (it runs after every mlc pass)
    return verify_graph(op, ours) + verify_tp(op, ours), bool(ours)


class PassManager:
    """An ordered pipeline of mlc and upstream passes, run on a builtin.module."""

    def __init__(self, *, verify_each: bool = True) -> None:
        self.verify_each = verify_each
        self.anchor = MODULE_ANCHOR
        self.elements: list[Element] = []
        self.print_after = False
        self.print_before = False
        self.print_generic = False
        self.timing = False
        self.timings: list[tuple[str, float]] = []
        self.internal_error: str | None = None
        self.temps_dir: pathlib.Path | None = None
        self.diagnostics: list[Diag] = []
        """Warnings and remarks the passes of the last run reported (`PassContext.warn`)."""
        self._verified = False  # the IR as it stands passed MLIR's verifier
        self._mlc_ops = True  # the last check of mlc's dialects found graph or tp ops

    @classmethod
    def parse(cls, text: str, *, verify_each: bool = True) -> PassManager:
        """Parse `anchor(...)`; raises PipelineParseError (with the position) on bad input.
        The pipeline is independent of any context: it runs on whatever module it is given."""
        pipeline = parse_pipeline(text)
        pm = cls(verify_each=verify_each)
        pm.anchor = pipeline.anchor
        pm.elements = list(pipeline.body)
        return pm

    def add(self, item: str | ModulePass) -> PassManager:
        """Append passes: an mlc pass instance, or pipeline text (`func.func(cse),mlc-dce`)."""
        if isinstance(item, ModulePass):
            self.elements.append(PassEntry(item.name, (), "mlc", item))
        else:
            self.elements.extend(parse_elements(item))
        return self

    @property
    def pipeline(self) -> Pipeline:
        return Pipeline(self.anchor, tuple(self.elements))

    def __str__(self) -> str:
        return str(self.pipeline)

    def enable_ir_printing(
        self, *, after_all: bool = True, before_all: bool = False, generic: bool = False
    ) -> None:
        """Print the IR around each pass to stderr, like `--mlir-print-ir-after-all`."""
        self.print_after, self.print_before, self.print_generic = after_all, before_all, generic

    def enable_timing(self) -> None:
        """Record per-pass wall time (`timings`) and print a report to stderr after each run."""
        self.timing = True

    def save_temps(self, directory: pathlib.Path) -> None:
        """Write the pipeline, the IR after every step, and on failure a reproducer to a dir.

        A folder that holds the files of an earlier run (it has the `.mlc-save-temps` marker)
        is emptied of them first, so that two runs never mix; a non-empty folder without the
        marker is refused rather than written into."""
        prepare_temps_dir(directory)
        self.temps_dir = directory

    def save_temp(self, name: str, text: str) -> None:
        """Write one file into the --save-temps folder (an MlcError naming it if that fails)."""
        assert self.temps_dir is not None
        path = self.temps_dir / name
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as e:
            raise MlcError(f"--save-temps: cannot write {path}: {e.strerror or e}") from None

    def steps(self) -> Iterator[Element]:
        """What runs, in order: named pipelines expanded, each nested pass as its own nest."""
        for e in self.elements:
            yield from _expand(e)

    def run(
        self,
        module: ir.Module | ir.Operation,
        *,
        params: dict[str, object] | None = None,
        filename: str = "-",
    ) -> None:
        """Run on `module`; raises PassFailedError carrying `file:line:col: error: ...` lines.

        `params` (name -> numpy array) is shared with the passes, which may add to it.
        Python handles to ops inside `module` are invalid afterwards: walk it again.
        """
        op = module.operation if isinstance(module, ir.Module) else module
        ctx = PassContext(params=params)
        self.diagnostics = ctx.diagnostics
        self.timings = []
        self.internal_error = None
        self._verified, self._mlc_ops = False, True
        start = time.perf_counter()
        if self.temps_dir is not None:
            self.save_temp("pipeline.txt", str(self) + "\n")
        steps = list(self.steps())
        symbolic: list[object] = []  # [first symbolic (type, location) or None], found once
        bounds = symbol_bounds(op)  # @main's, read before graph-to-tp replaces it
        try:
            for i, step in enumerate(steps, start=1):
                t0 = time.perf_counter()
                before = op.get_asm(enable_debug_info=True) if self.temps_dir is not None else ""
                try:
                    with progress.step(i, len(steps), str(step)):
                        if isinstance(step, PassEntry) and step.kind == "mlc":
                            assert step.instance is not None
                            _refuse_symbolic(op, step.instance, symbolic, filename)
                            with assume(bounds):  # size comparisons decided under them
                                self._run_mlc(op, step.instance, ctx, filename)
                        else:
                            group = self._upstream_group(steps, i - 1)
                            self._run_upstream(op, step, filename, group)
                except PassFailedError:
                    self._reproducer(step, before, ctx.params)
                    raise
                self.timings.append((str(step), time.perf_counter() - t0))
                if self.temps_dir is not None:
                    name = re.sub(r"[^\w.-]+", "_", str(step))[:60]
                    self.save_temp(f"{i:02d}-{name}.mlir", op.get_asm(enable_debug_info=True))
        finally:
            if self.timing:
                _print_timing(self.timings, time.perf_counter() - start)

    def _reproducer(self, step: Element, before: str, params: dict[str, object] | None) -> None:
        """reproducer.mlir (and reproducer.npz with the params at that point, if any): the
        command in its header uses absolute paths, so it runs from any folder."""
        if self.temps_dir is None:
            return
        folder = self.temps_dir.resolve()
        command = f"mlc-opt {folder / 'reproducer.mlir'}"
        if params:
            from mlc.npz import write_npz

            try:
                write_npz(folder / "reproducer.npz", params)  # type: ignore[arg-type]
            except OSError as e:
                raise MlcError(f"--save-temps: cannot write reproducer.npz: {e}") from None
            command += f" --params {folder / 'reproducer.npz'}"
        command += f" --pass-pipeline='{self.anchor}({step})'"
        self.save_temp(
            "reproducer.mlir",
            f"// The input of the failing step; reproduce with:\n//   {command}\n{before}",
        )

    def _upstream_group(self, steps: list[Element], index: int) -> list[str] | None:
        """The run of consecutive upstream steps that `steps[index]` ends, verified together
        after it, or None when the step is not verified: the MLIR verifier walks the whole
        module (ResNet-50's lowering: 15 upstream passes, 0.6-0.9 s of verification), and an
        upstream pass breaking the IR is an upstream bug, so the IR is verified where each run
        of them ends (and after every mlc pass). With --save-temps or IR printing every step
        is verified, to place a failure exactly."""
        if self.temps_dir is not None or self.print_after or self.print_before:
            return [str(steps[index])]
        nxt = steps[index + 1] if index + 1 < len(steps) else None
        if nxt is not None and not (isinstance(nxt, PassEntry) and nxt.kind == "mlc"):
            return None  # the next step is upstream too: verified after the last of them
        start = index
        while start > 0 and not (
            isinstance(steps[start - 1], PassEntry) and steps[start - 1].kind == "mlc"
        ):
            start -= 1
        return [str(s) for s in steps[start : index + 1]]

    def _run_upstream(
        self, op: ir.Operation, step: Element, filename: str, group: list[str] | None = None
    ) -> None:
        """Run one upstream step, verifying the IR after it when it ends `group` (see
        `_upstream_group`); a failure names every step of the group."""
        verify = self.verify_each and group is not None
        self._verified = False
        try:
            run_upstream(
                op,
                self.anchor,
                str(step),
                verify=verify,
                print_before=self.print_before,
                print_after=self.print_after,
                generic=self.print_generic,
            )
        except ir.MLIRError as e:  # from the pass or the verifier
            diags = diags_of_error(e)
            if verify and group and len(group) > 1:
                diags.append(
                    Diag(
                        "note",
                        f"the IR is verified after the upstream passes {', '.join(group)} "
                        "as a whole: any of them may have broken it (--save-temps verifies "
                        "each one)",
                    )
                )
            raise PassFailedError(f"{step} failed", diags, filename) from None
        self._verified = verify

    def _run_mlc(
        self, op: ir.Operation, mlc_pass: ModulePass, ctx: PassContext, filename: str
    ) -> None:
        if self.print_before:
            print_ir_dump(
                op, f"Before {mlc_pass.name} ({mlc_pass.name})", generic=self.print_generic
            )
        if not mlc_pass.checks_only:
            self._verified = False
        try:
            with op.context, op.location:
                mlc_pass.run(op, ctx)
        except DiagnosticError as e:
            raise _failed(mlc_pass, e.items(), filename) from None
        except UndecidableError as e:  # a size only known at run time that the pass needs
            if os.environ.get("MLC_DEBUG"):
                traceback.print_exc()
            raise _failed(mlc_pass, [(f"{mlc_pass.name}: {e}", op.location)], filename) from None
        except Exception as e:  # noqa: BLE001 - a bug in a pass fails the pass, it must not abort
            self.internal_error = traceback.format_exc()
            message = f"{mlc_pass.name}: internal error: {type(e).__name__}: {e}"
            raise PassFailedError(
                message,
                [
                    Diag(
                        "error",
                        message + " (this is a bug in mlc; set MLC_DEBUG=1 for the traceback)",
                    )
                ],
                filename,
            ) from e
        if self.verify_each:
            self._verify_after(op, mlc_pass, filename)
        if self.print_after:
            print_ir_dump(
                op, f"After {mlc_pass.name} ({mlc_pass.name})", generic=self.print_generic
            )

    def _verify_after(self, op: ir.Operation, mlc_pass: ModulePass, filename: str) -> None:
        per_step = self.temps_dir is not None or self.print_after or self.print_before
        if mlc_pass.checks_only and self._verified and not per_step:
            return  # it changed nothing, and what it was given was verified
        self._verified = False
        try:
            op.verify()
        except ir.MLIRError as e:
            raise PassFailedError(
                f"{mlc_pass.name} produced invalid IR",
                diags_of_error(e)
                + [Diag("error", f"{mlc_pass.name} produced IR that does not verify")],
                filename,
            ) from None
        if self._mlc_ops or mlc_pass.emits_mlc_dialects or per_step:
            found, self._mlc_ops = _check_mlc_dialects(op)
            errors = [item for e in found for item in e.items()]
        else:
            errors = []  # lowered below both dialects, and this pass cannot bring them back
        if errors:
            raise _failed(
                mlc_pass,
                errors + [(f"{mlc_pass.name} produced IR that does not verify", None)],
                filename,
            )
        self._verified = True


TEMPS_MARKER = ".mlc-save-temps"
_TEMP_FILE = re.compile(r"^(\d\d+-.*\.mlir|pipeline\.txt|reproducer\.(mlir|npz))$")


def prepare_temps_dir(directory: pathlib.Path) -> None:
    """Make `directory` ready for one run's temporary files (see `PassManager.save_temps`)."""
    where = f"--save-temps folder '{directory}'"
    try:
        if directory.is_dir() and any(directory.iterdir()):
            if not (directory / TEMPS_MARKER).is_file():
                raise MlcError(
                    f"{where} is not empty and holds no earlier --save-temps run; give a new "
                    "or empty folder (its files would be mixed with this run's)"
                )
            for old in directory.iterdir():
                if _TEMP_FILE.match(old.name) and old.is_file():
                    old.unlink()
        directory.mkdir(parents=True, exist_ok=True)
        (directory / TEMPS_MARKER).write_text(
            "This folder holds the files of one mlc --save-temps run; the next run into it "
            "replaces them.\n"
        )
    except OSError as e:
        raise MlcError(f"{where}: cannot create it or write into it ({e.strerror or e})") from None


def _failed(
    mlc_pass: ModulePass, items: list[tuple[str, object | None]], filename: str
) -> PassFailedError:
    return PassFailedError(
        f"{mlc_pass.name} failed", [Diag.at("error", m, loc) for m, loc in items], filename
    )


def _expand(element: Element) -> Iterator[Element]:
    """A named pipeline's body (recursively); a nest split into one nest per pass."""
    if isinstance(element, PassEntry) and element.kind == "pipeline":
        assert element.instance is not None
        for inner in parse_elements(element.instance.expand()):  # type: ignore[attr-defined]
            yield from _expand(inner)
    elif isinstance(element, Nest) and len(element.body) > 1:
        for inner in element.body:
            yield from (Nest(element.anchor, (e,), element.pos) for e in _expand_nested(inner))
    else:
        yield element


def _expand_nested(element: Element) -> Iterator[Element]:
    if isinstance(element, Nest) and len(element.body) > 1:
        for inner in element.body:
            yield from (Nest(element.anchor, (e,), element.pos) for e in _expand_nested(inner))
    else:
        yield element


def _print_timing(timings: list[tuple[str, float]], total: float) -> None:
    bar = "===" + "-" * 73 + "==="
    out = [
        bar,
        " " * 25 + "... Execution time report ...",
        bar,
        f"  Total Execution Time: {total:.4f} seconds",
        "",
        "  ----Wall Time----  ----Name----",
    ]
    for name, seconds in timings:
        out.append(f"  {seconds:8.4f} ({100 * seconds / total if total else 0:5.1f}%)  {name}")
    rest = total - sum(s for _, s in timings)
    out.append(f"  {rest:8.4f} ({100 * rest / total if total else 0:5.1f}%)  Rest")
    out.append(f"  {total:8.4f} (100.0%)  Total")
    sys.stderr.write("\n".join(out) + "\n\n")
    sys.stderr.flush()


def _refuse_symbolic(
    op: ir.Operation, mlc_pass: ModulePass, found: list[object], filename: str
) -> None:
    """PassFailedError when `mlc_pass` does not handle symbolic dims and the IR has some;
    the IR is searched at most once per run (`found` caches the answer: no pass adds any)."""
    if mlc_pass.symbolic_dims:
        return
    if not found:
        from mlc.dialects.attrs import first_symbolic_value

        found.append(first_symbolic_value(op))
    if found[0] is None:
        return
    t, location = found[0]  # type: ignore[misc]
    message = (
        f"{mlc_pass.name} does not handle symbolic dims yet ({t}); give the inputs fixed "
        "sizes (--input-shapes, shape_dict) to compile this model"
    )
    raise _failed(mlc_pass, [(message, location)], filename)
