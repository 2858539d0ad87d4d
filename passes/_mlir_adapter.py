"""The only module that drives `mlir.passmanager`.

mlc runs a pipeline element by element: an mlc pass is a Python call on the module; an upstream
pass (or a nest such as `func.func(cse)`) runs in a fresh MLIR PassManager of its own. This
keeps mlc independent of the Python-pass API of the bindings (introduced and changed twice in
2025; a PassManager holding a Python pass is never freed in the pinned version, so its timing
report only appears at process exit), and gives one place for timing, IR printing and
verify-each across both kinds of passes.
"""

from __future__ import annotations

import sys

from mlir import ir
from mlir.passmanager import PassManager as MlirPassManager


def run_upstream(
    op: ir.Operation,
    anchor: str,
    text: str,
    *,
    verify: bool,
    print_before: bool = False,
    print_after: bool = False,
    generic: bool = False,
) -> None:
    """Run upstream pipeline text (e.g. `func.func(cse)`) on `op`; MLIRError on failure."""
    with op.context:
        pm = MlirPassManager.parse(f"{anchor}({text})")
        pm.enable_verifier(verify)
        if print_before or print_after:
            pm.enable_ir_printing(
                print_before_all=print_before,
                print_after_all=print_after,
                print_generic_op_form=generic,
            )
        try:
            pm.run(op)
        finally:
            sys.stderr.flush()


def print_ir_dump(op: ir.Operation, title: str, *, generic: bool = False) -> None:
    """Print `op` to stderr under MLIR's `// -----// IR Dump ... //----- //` banner."""
    sys.stderr.write(f"// -----// IR Dump {title} //----- //\n")
    sys.stderr.write(op.get_asm(print_generic_op_form=generic))
    sys.stderr.write("\n\n")
    sys.stderr.flush()
