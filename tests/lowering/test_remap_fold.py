"""A matmul written through the transpose/reshape after it (packed weight panels back to rows):
the inverse of the remap, the epilogue fused on the register tile through the resulting out map,
and the numbers of whole dense layers against onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir
from onnx import helper

from helpers.onnx_testing import make_model, rand, run_ort
from mlc.dialects.tp import BlockView
from mlc.dialects.walk import walk
from mlc.passes.lowering.loop_nest import fusable_epilogue
from mlc.passes.lowering.tp_emit.remap_fold import invert


def _map(text: str) -> ir.AffineMap:
    return ir.AffineMapAttr(ir.Attribute.parse(f"affine_map<{text}>")).value


def _at(amap: ir.AffineMap, point: list[int]) -> tuple[int, ...]:
    consts = ir.AffineMap.get(len(point), 0, [ir.AffineConstantExpr.get(v) for v in point])
    return tuple(ir.AffineConstantExpr(r.compose(consts)).value for r in amap.results)


def test_invert_panels_back_to_rows() -> None:
    with ir.Context():
        remap = _map("(d0, d1, d2) -> (d2 floordiv 16, d1, d2 mod 16)")
        inverse = invert(remap, [1, 197, 3072], [192, 197, 16])
        assert str(inverse) == "(d0, d1, d2) -> (0, d1, d0 * 16 + d2)"
        permutation = invert(_map("(d0, d1, d2) -> (d2, d0, d1)"), [2, 3, 4], [4, 2, 3])
        assert str(permutation) == "(d0, d1, d2) -> (d1, d2, d0)"


def test_invert_rows_merged_by_a_reshape() -> None:
    """ConvNeXt's [1, 56, 56, C] dense layer: the product's rows are H * W merged."""
    with ir.Context():
        remap = _map("(d0, d1, d2, d3) -> (d3 floordiv 16, d1 * 56 + d2, d3 mod 16)")
        inverse = invert(remap, [1, 56, 56, 384], [24, 3136, 16])
        assert str(inverse) == "(d0, d1, d2) -> (0, d1 floordiv 56, d1 mod 56, d0 * 16 + d2)"
        three = invert(_map("(d0, d1, d2) -> (d0 * 12 + d1 * 4 + d2)"), [2, 3, 4], [24])
        assert str(three) == "(d0) -> (d0 floordiv 12, (d0 floordiv 4) mod 3, d0 mod 4)"
        for index in np.ndindex(2, 3, 4):  # the inverse undoes the merge
            flat = index[0] * 12 + index[1] * 4 + index[2]
            assert _at(three, [flat]) == index


@pytest.mark.parametrize(
    "text,extents,image",
    [
        ("(d0, d1) -> (d0 + d1, 0)", [4, 4], [16, 1]),  # not made of whole dims
        ("(d0, d1) -> (d1 floordiv 8, d0, d1 mod 8)", [2, 32], [3, 2, 8]),  # 3 * 8 != 32
        ("(d0, d1) -> (d1 floordiv 8, d0, d1 mod 4)", [2, 32], [4, 2, 8]),  # two divisors
        ("(d0, d1) -> (d0, d0)", [4, 4], [4, 4]),  # d1 lost: not a bijection
        ("(d0, d1) -> (d0 * 5 + d1)", [4, 4], [20]),  # strides of no row-major merge
        ("(d0, d1) -> (d0 * 4 + d1 + 1)", [4, 4], [17]),  # an offset
        ("(d0, d1) -> (d0 * 4 + d1, d1)", [4, 4], [16, 4]),  # d1 twice
    ],
)
def test_invert_refuses_what_is_not_a_split_permutation(
    text: str, extents: list[int], image: list[int]
) -> None:
    with ir.Context():
        assert invert(_map(text), extents, image) is None


PAIR = """
func.func @k(%A: memref<12x8xf32>, %B: memref<2x8x16xf32>, %bias: memref<32xf32>,
             %C: memref<12x32xf32>) {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(p, i, j, k) -> (i, k)>} : (memref<12x8xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(p, i, j, k) -> (p, k, j)>} : (memref<2x8x16xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["p", "i", "j", "k"], kinds = "SSSR",
      extents = array<i64: 2, 12, 16, 8>, out_map = affine_map<(p, i, j, k) -> (i, p * 16 + j)>,
      combiner = "add", init = 0.0 : f32, schedule = SCHEDULE} : (memref<12x32xf32>) -> ()
  "tp.block"(%C) ({
    %y = "tp.read"(%C) {map = affine_map<(r, c) -> (r, c)>} : (memref<12x32xf32>) -> f32
    %b = "tp.read"(%bias) {map = affine_map<(r, c) -> (c)>} : (memref<32xf32>) -> f32
    %s = arith.addf %y, %b : f32
    gpu.yield %s : f32
  }) {name = "bias", axes = ["r", "c"], kinds = "SS", extents = array<i64: 12, 32>,
      out_map = affine_map<(r, c) -> (r, c)>, combiner = "none", init, schedule = {}}
      : (memref<12x32xf32>) -> ()
  return
}
"""
ROW_TILE = (
    '{order = ["p", "i.0", "k", "i.1", "j"], tile = {i = array<i64: 6>}, '
    'unroll = {i.1 = 6 : i64}, vectorize = "j"}'
)
ACROSS_PANELS = '{order = ["i", "j", "k", "p"], vectorize = "p"}'  # lanes 16 columns apart


@pytest.mark.parametrize("schedule,fused", [(ROW_TILE, True), (ACROSS_PANELS, False)])
def test_epilogue_fuses_through_a_panel_out_map(schedule: str, fused: bool) -> None:
    """The bias runs on the register tile when the lanes step one output column each (`j` of
    `p * 16 + j`), not when they step 16 apart."""
    import mlc

    with mlc.Context(), ir.Location.unknown():
        module = ir.Module.parse(PAIR.replace("SCHEDULE", schedule))
        views = [BlockView(op) for op in walk(module.operation) if op.name == "tp.block"]
        assert fusable_epilogue(views[0], views[1]) is fused


def _dense_model(rows: int, k: int, n: int, tail: str) -> tuple[object, np.ndarray]:
    w, b = rand(k, n, seed=1) * 0.1, rand(n, seed=2)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["h"]),
    ]
    if tail == "gelu":  # erf form: h * 0.5 * (1 + erf(h / sqrt 2)); h used twice (a diamond)
        consts = {"s": np.float32(1 / np.sqrt(2)), "one": np.float32(1), "half": np.float32(0.5)}
        nodes += [
            helper.make_node("Mul", ["h", "s"], ["hs"]),
            helper.make_node("Erf", ["hs"], ["e"]),
            helper.make_node("Add", ["e", "one"], ["e1"]),
            helper.make_node("Mul", ["h", "e1"], ["he"]),
            helper.make_node("Mul", ["he", "half"], ["y"]),
        ]
    else:  # the result transposed: the product's columns become rows
        consts = {}
        nodes.append(helper.make_node("Transpose", ["h"], ["y"], perm=[0, 2, 1]))
    x = rand(1, rows, k, seed=3)
    inits = {"w": w, "b": b, **{name: np.asarray(v) for name, v in consts.items()}}
    return make_model(nodes, {"x": (x.dtype, x.shape)}, ["y"], inits, opset=17), x


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("rows,k,n,tail", [(37, 96, 64, "gelu"), (20, 48, 32, "transposed")])
def test_dense_layers_against_onnxruntime(
    threads: int, rows: int, k: int, n: int, tail: str
) -> None:
    import mlc
    from mlc.frontend import from_onnx
    from mlc.runtime import GraphModule

    model, x = _dense_model(rows, k, n, tail)
    lib = mlc.build(*from_onnx(model), threads=threads)
    gm = GraphModule(lib.jit())
    gm.set_input("x", x)
    gm.run()
    np.testing.assert_allclose(gm.get_output(0), run_ort(model, {"x": x})[0], rtol=1e-4, atol=1e-4)
