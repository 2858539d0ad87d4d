"""C code of a model's symbolic shapes, for its C API (`capi.py`, `mlc_model_runtime.c`).

From the manifest's dim expressions: which input axes bind which symbol (`seq`), the symbols'
bounds, the value of every expression input dim, output dim and shape check as C expressions
over the symbol values `s[]`. `//` and `%` keep Python's floor semantics (`mlc.symbolic`
evaluates them so), unlike C's truncating `/` and `%`. A static model gets the same tables,
empty, so the runtime has one code path.
"""

from __future__ import annotations

import numpy as np

from mlc import symbolic
from mlc.contract import Manifest, TensorSpec, check_sides, plain_symbol

KIND_STATIC, KIND_SYMBOL, KIND_EXPR = 0, 1, 2

C_HELPERS = """\
/* Python's floor division and modulo (mlc.symbolic); a zero divisor sets mlc_div_zero_. */
static __thread int mlc_div_zero_;
static inline int64_t mlc_floordiv_(int64_t a, int64_t b) {
  if (b == 0) { mlc_div_zero_ = 1; return 0; }
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t mlc_mod_(int64_t a, int64_t b) {
  if (b == 0) { mlc_div_zero_ = 1; return 0; }
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline int64_t mlc_max_(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t mlc_min_(int64_t a, int64_t b) { return a < b ? a : b; }
"""


def symbol_names(manifest: Manifest) -> list[str]:
    """The symbols, in the order of their first input dim (their index in `s[]`)."""
    names: dict[str, None] = {}
    for spec in manifest.inputs:
        for d in spec.dims():
            for name in sorted(symbolic.free_symbols(d)):
                names.setdefault(name)
    return list(names)


def c_expr(dim: int | symbolic.Dim, index: dict[str, int]) -> str:
    """`dim` as a C int64_t expression over `s[index[name]]`."""
    if not isinstance(dim, symbolic.Dim):
        return f"INT64_C({dim})"
    terms = []
    for mono, coeff in dim.terms:
        factors = [f"INT64_C({coeff})"]
        for atom, power in mono:
            factors += [_c_atom(atom, index)] * power
        terms.append(" * ".join(factors))
    return "(" + " + ".join(terms) + ")"


def _c_atom(atom: object, index: dict[str, int]) -> str:
    if isinstance(atom, str):
        return f"s[{index[atom]}]"
    assert isinstance(atom, symbolic.Op)
    fn = {"//": "mlc_floordiv_", "%": "mlc_mod_", "max": "mlc_max_", "min": "mlc_min_"}
    return f"{fn[atom.kind]}({c_expr(atom.a, index)}, {c_expr(atom.b, index)})"


def _rows(rows: list[str]) -> str:
    return "{\n" + ",\n".join(f"  {r}" for r in rows or ["{0}"]) + "\n}"


def _kinds(spec: TensorSpec, rank: int) -> tuple[list[int], list[int]]:
    kinds, args = [], []
    for d in spec.dims():
        if isinstance(d, int):
            kinds.append(KIND_STATIC), args.append(d)
        elif plain_symbol(d) is not None:
            kinds.append(KIND_SYMBOL), args.append(-1)  # the index is filled by the caller
        else:
            kinds.append(KIND_EXPR), args.append(-1)
    pad = rank - len(kinds)
    return kinds + [0] * pad, args + [0] * pad


def _switch(cases: list[tuple[int, str]], default: str) -> str:
    body = "".join(f"  case {k}: {stmt}\n" for k, stmt in cases)
    return f"switch (key) {{\n{body}  default: {default}\n  }}" if cases else default


def shape_source(manifest: Manifest) -> str:
    """The C definitions `mlc_model_runtime.c` reads for symbolic shapes."""
    names = symbol_names(manifest)
    index = {n: i for i, n in enumerate(names)}
    rank = max([1] + [len(s.shape) for s in (*manifest.inputs, *manifest.outputs)])
    bounds = [manifest.bounds(n) for n in names]
    kinds, args, exprs = [], [], []
    for i, spec in enumerate(manifest.inputs):
        k, a = _kinds(spec, rank)
        for axis, d in enumerate(spec.dims()):
            if k[axis] == KIND_SYMBOL:
                a[axis] = index[str(d)]
            elif k[axis] == KIND_EXPR:
                exprs.append((i * rank + axis, f"return {c_expr(d, index)};"))
        kinds.append("{" + ", ".join(map(str, k)) + "}")
        args.append("{" + ", ".join(f"INT64_C({x})" for x in a) + "}")
    outs = []
    for o, spec in enumerate(manifest.outputs):
        sets = " ".join(
            f"shape[{axis}] = {c_expr(d, index)};" for axis, d in enumerate(spec.dims())
        )
        outs.append((o, f"{sets} return;"))
    checks = [(c, check_sides(text)) for c, text in enumerate(manifest.shape_checks)]
    check_cases = [
        (c, f"*lhs = {c_expr(a, index)}; *rhs = {c_expr(b, index)}; return;")
        for c, (a, b) in checks
    ]
    texts = [_c_str(t) for t in manifest.shape_checks] + ["0"]
    symbolic_inputs = [str(int(not s.is_static)) for s in manifest.inputs] or ["0"]
    symbolic_outputs = [str(int(not s.is_static)) for s in manifest.outputs] or ["0"]
    return f"""\
{C_HELPERS}#define MLC_NUM_SYMBOLS {len(names)}
#define MLC_NUM_CHECKS {len(checks)}
#define MLC_MAX_RANK {rank}
static const char *const mlc_symbol_names_[] = {{{", ".join([*map(_c_str, names), "0"])}}};
/* inclusive bounds; -1: unbounded above */
static const int64_t mlc_symbol_bounds_[][2] = {
        _rows([f"{{{lo}, {-1 if hi is None else hi}}}" for lo, hi in bounds])
    };
/* per input axis: 0 a static size (arg), 1 binds symbol `arg`, 2 an expression (checked) */
static const signed char mlc_input_kind_[][MLC_MAX_RANK] = {_rows(kinds)};
static const int64_t mlc_input_arg_[][MLC_MAX_RANK] = {_rows(args)};
static const int mlc_input_symbolic_[] = {{{", ".join(symbolic_inputs)}}};
static const int mlc_output_symbolic_[] = {{{", ".join(symbolic_outputs)}}};
static const size_t mlc_input_itemsize_[] = {{{", ".join(_itemsizes(manifest.inputs))}}};
static const size_t mlc_output_itemsize_[] = {{{", ".join(_itemsizes(manifest.outputs))}}};
static const char *const mlc_check_text_[] = {{{", ".join(texts)}}};
static int64_t mlc_input_expr_(int input, int axis, const int64_t *s) {{
  int key = input * MLC_MAX_RANK + axis;
  (void)key; (void)s;
  {_switch(exprs, "return 0;")}
}}
static void mlc_output_shape_(int output, const int64_t *s, int64_t *shape) {{
  int key = output;
  (void)key; (void)s; (void)shape;
  {_switch(outs, "return;")}
}}
static void mlc_check_sides_(int check, const int64_t *s, int64_t *lhs, int64_t *rhs) {{
  int key = check;
  (void)key; (void)s; *lhs = *rhs = 0;
  {_switch(check_cases, "return;")}
}}
"""


def _itemsizes(specs: tuple[TensorSpec, ...]) -> list[str]:
    return [f"{np.dtype(s.dtype).itemsize}u" for s in specs] or ["0"]


def _c_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
