"""tp dialect: builders, the loop nest a schedule implies, and schedule validation."""

from __future__ import annotations

import pytest
from mlir import ir
from mlir.dialects import arith, func

from mlc.dialects import tp
from mlc.dialects.tp.verify import verify_tp


def test_default_loops_follow_tiling_levels() -> None:
    s = tp.Schedule(tile={"i": (4,), "j": (8,)})
    loops = s.loops(["i", "j", "k"], "SSR", [64, 16, 32])
    assert [lp.name for lp in loops] == ["i.0", "j.0", "k", "i.1", "j.1"]
    assert [(lp.trip, lp.stride) for lp in loops] == [(16, 4), (2, 8), (32, 1), (4, 1), (8, 1)]


def test_multi_level_and_inexact_tiles() -> None:
    s = tp.Schedule(tile={"oc": (32, 8)})
    loops = s.loops(["oc"], "S", [100])
    assert [(lp.name, lp.trip, lp.stride, lp.exact) for lp in loops] == [
        ("oc.0", 4, 32, False),
        ("oc.1", 4, 8, False),
        ("oc.2", 8, 1, False),
    ]
    assert s.check(["oc"], "S", [100]) == []


@pytest.mark.parametrize(
    "schedule, message",
    [
        (tp.Schedule(tile={"z": (2,)}), "tile names unknown axis 'z'"),
        (tp.Schedule(tile={"i": (0,)}), "must be decreasing, positive"),
        (tp.Schedule(tile={"i": (8, 3)}), "must be decreasing, positive"),
        (tp.Schedule(tile={"i": (128,)}), "must be decreasing, positive"),
        (tp.Schedule(order=("j", "i")), "must list every loop exactly once"),
        (tp.Schedule(unroll={"i": 0}), "unroll factor of 'i' must be >= 1"),
        (tp.Schedule(vectorize="i"), "must be the innermost loop"),
        (
            tp.Schedule(order=("i", "k.0", "k.1", "j"), tile={"k": (16,)}, vectorize="k.1"),
            "must be the innermost loop",
        ),
        (
            tp.Schedule(order=("i", "k.0", "j", "k.1"), tile={"k": (16,)}, vectorize="k.1"),
            "needs the spatial loops after the first reduce loop unrolled, not ['j']",
        ),
        (
            tp.Schedule(order=("i", "k", "j"), vectorize="j", tile={}),
            "needs at most 64 lanes",
        ),
        (
            tp.Schedule(tile={"j": (40, 8)}, vectorize="j.2"),
            "needs the axis tiled once",
        ),
        (
            tp.Schedule(tile={"j": (12,)}, unroll={"j.0": 9}, vectorize="j.1"),
            "cannot be unrolled when the last tile is partial",
        ),
        (tp.Schedule(parallel=("j",)), "must be the outermost loops in order"),
        (tp.Schedule(order=("k", "i", "j"), parallel=("k",)), "must be a spatial loop"),
        (tp.Schedule(parallel_from=100), "parallel_from must be >= 0 and needs parallel loops"),
    ],
)
def test_schedule_errors(schedule: tp.Schedule, message: str) -> None:
    errors = schedule.check(["i", "j", "k"], "SSR", [64, 100, 32])
    assert any(message in e for e in errors), errors


def test_schedule_attribute_round_trip(ctx: ir.Context) -> None:
    s = tp.Schedule(
        tile={"oc": (32, 8)},
        order=("oc.0", "oc.1", "oc.2"),
        unroll={"oc.1": 4},
        vectorize="oc.2",
        parallel=("oc.0",),
        parallel_from=4096,
    )
    with ctx:
        attr = s.to_attr()
        assert "parallel_from = 4096" in str(attr)
        assert tp.Schedule.from_attr(ir.Attribute.parse(str(attr))) == s
        with pytest.raises(ValueError, match="unknown schedule key"):
            tp.Schedule.from_attr(ir.Attribute.parse("{tiles = {}}"))
        with pytest.raises(ValueError, match="malformed schedule"):
            tp.Schedule.from_attr(ir.Attribute.parse('{tile = {i = "x"}}'))


def test_block_builder_and_verifier(ctx: ir.Context) -> None:
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        f32 = ir.F32Type.get()
        with ir.InsertionPoint(module.body):
            mt = lambda *s: ir.MemRefType.get(list(s), f32)  # noqa: E731
            f = func.FuncOp("mm", ([mt(8, 4), mt(4, 6), mt(8, 6)], []))
            f.attributes[tp.KERNEL_ATTR] = ir.UnitAttr.get()
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                a_buf, b_buf, c_buf = entry.arguments
                blk = tp.block(
                    c_buf,
                    name="mm",
                    axes="i j k",
                    kinds="SSR",
                    extents=[8, 6, 4],
                    out_map="(i, j)",
                    combiner="add",
                    init=0.0,
                    schedule=tp.Schedule(tile={"j": (2,)}, vectorize="j.1"),
                )
                with ir.InsertionPoint(blk.body):
                    a = tp.read(a_buf, blk, "(i, k)")
                    b = tp.read(b_buf, blk, "(k, j)")
                    tp.yield_(arith.mulf(a, b))
                func.ReturnOp([])
        assert module.operation.verify()
        assert verify_tp(module.operation) == []
        view = tp.BlockView(blk.op)
        assert (view.axes, view.kinds, view.extents, view.combiner) == (
            ["i", "j", "k"],
            "SSR",
            [8, 6, 4],
            "add",
        )
        assert tp.kernels(module) and tp.kernels(module)[0].name == "func.func"
        # A read past the end is caught by the verifier, at the read.
        with ir.InsertionPoint.at_block_begin(blk.body):
            tp.read(a_buf, blk, "(i + 1, k)")
        errors = verify_tp(module.operation)
        assert len(errors) == 1 and "reads out of bounds" in errors[0].message


def test_axis_map_respects_name_boundaries(ctx: ir.Context) -> None:
    with ctx:
        m = tp.axis_map(["oh", "h", "ohh"], "(ohh + oh * 2, h)")
        assert str(m) == "(d0, d1, d2) -> (d2 + d0 * 2, d1)"
