"""Knob spaces: derived from each block (never per op), every point a legal schedule, the
default schedule a point of the space, and every kind of point lowering to LLVM."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

import mlc
from helpers.onnx_models import encoder_layer, mobilenet_like
from helpers.onnx_testing import import_model
from helpers.tuner_models import batched_conv_net, conv_net, dense_net, winograd_net
from mlc.contract import TargetInfo
from mlc.dialects.tp import BlockView, Schedule
from mlc.dialects.walk import walk
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.tuner.facts import BlockFacts, vector_registers
from mlc.tuner.harness import harness, kernel_of, lowering_pipeline, set_schedule
from mlc.tuner.space import Columns, ConfigSpace, Constraint, Draft, Knob
from mlc.tuner.templates import block_space

AVX2 = TargetInfo("x86_64-unknown-linux-gnu", "znver3", ("avx", "avx2", "fma"))
AVX512 = TargetInfo("x86_64-unknown-linux-gnu", "znver5", ("avx", "avx2", "avx512f", "fma"))
MODELS = {
    "conv_net": conv_net,
    # images outside the channel blocks, rows inside (n, ocb, oh, ow): the columns-first
    # order keeps the batch first, or the space would not hold the default
    "batched_conv_net": batched_conv_net,
    "dense_net": dense_net,
    # a GEMM batched over Winograd's positions, its vector axis blocked outside its rows
    # (s0, s2.0, s1.0): the batch stays first, or the space would be the default alone
    "winograd_net": winograd_net,
    "mobilenet_like": mobilenet_like,
    "encoder_layer": encoder_layer,
}


_KEEP: list[ir.Module] = []


def scheduled_blocks(model: str, threads: int) -> list[tuple[str, BlockView]]:
    """(kernel name, block) of a model scheduled as mlc compile does (the module is kept alive:
    the views point into it)."""
    module, params = import_model(MODELS[model]())
    _KEEP.append(module)
    graph, schedule, _ = MlcDefaultPipeline(threads=threads, vector_bits=256, vnni_bits=0).stages()
    mlc.PassManager.parse(f"builtin.module({graph},{schedule})").run(module, params=params)
    out = []
    for op in walk(module.operation):
        if op.name == "tp.block":
            kernel = ir.StringAttr(op.parent.attributes["sym_name"]).value
            out.append((kernel, BlockView(op)))
    return out


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("model", sorted(MODELS))
def test_every_point_is_legal_and_the_default_is_one(model: str, threads: int) -> None:
    tuned = 0
    for kernel, view in scheduled_blocks(model, threads):
        facts = BlockFacts.of(view, view.schedule, threads, AVX2)
        space = block_space(facts)
        where = f"{kernel}/{view.name}"
        assert space.note in ("nest", "stream", "row"), f"{where}: {space.note}"
        default = space.schedule(space.default_index)
        assert default.check(facts.axes, facts.kinds, facts.extents) == []
        assert _same(default, view.schedule), f"{where}: {default} != {view.schedule}"
        for i in range(len(space)):
            errors = space.schedule(i).check(facts.axes, facts.kinds, facts.extents)
            assert not errors, f"{where} point {i} {space.get(i)}: {errors}"
        tuned += len(space) > 1
    assert tuned > 0


def _same(a: Schedule, b: Schedule) -> bool:
    drop = lambda s: {k: v for k, v in s.unroll.items() if v > 1}  # noqa: E731
    return (a.tile, a.order, drop(a), a.vectorize, a.parallel) == (
        b.tile,
        b.order,
        drop(b),
        b.vectorize,
        b.parallel,
    )


def test_conv_knobs_follow_autotvm_names_and_factor_one_is_offered() -> None:
    kernel, view = next(
        (k, v) for k, v in scheduled_blocks("conv_net", 2) if v.name.startswith("conv2d")
    )
    facts = BlockFacts.of(view, view.schedule, 2, AVX2)
    space = block_space(facts)
    knobs = {k.name: k.values for k in space.knobs}
    assert {"tile_oc", "tile_ow", "tile_oh", "tile_ocb", "unroll_kw", "unroll_ic"} <= set(knobs)
    assert {"reorder", "parallel"} <= set(knobs)
    assert 1 in knobs["unroll_kw"] and 3 in knobs["unroll_kw"]  # no unroll, full unroll
    assert ("CR", "RC") == knobs["reorder"]
    # register pressure: no point holds more accumulators + operands than AVX2's 16 registers
    for i in range(len(space)):
        c = space.get(i)
        acc = c["tile_ow"][-1] * c["tile_oh"][-1] * c["tile_ocb"][-1]
        assert acc + c["tile_ocb"][-1] + 1 <= 16 or i == space.default_index, c
    # a target with 32 vector registers gets bigger register tiles
    wide = block_space(BlockFacts.of(view, view.schedule, 2, AVX512))
    biggest = max(
        wide.get(i)["tile_ow"][-1] * wide.get(i)["tile_ocb"][-1] for i in range(len(wide))
    )
    assert biggest > 14 and len(wide) > len(space)
    assert vector_registers(AVX512) == (32, 512) and vector_registers(AVX2) == (16, 256)


def test_index_lookup_neighbors_and_json_round_trip() -> None:
    _, view = next((k, v) for k, v in scheduled_blocks("conv_net", 2) if v.name == "conv2d_1")
    space = block_space(BlockFacts.of(view, view.schedule, 2, AVX2))
    rng = np.random.default_rng(0)
    for i in rng.choice(len(space), size=20, replace=False):
        config = space.get(int(i))
        as_json = {k: list(v) if isinstance(v, tuple) else v for k, v in config.items()}
        assert space.index_of(as_json) == i
        for n in space.neighbors(int(i)):
            other = space.get(n)
            assert sum(config[k] != other[k] for k in config) == 1
    assert space.index_of({"tile_oc": 8}) is None  # incomplete


def test_a_new_knob_is_one_generator() -> None:
    """The extension point the schedule language grows through: a knob that sets a field of the
    finished Schedule directly (here: vectorize off), with a constraint coupling it to another."""
    base = Schedule(tile={"i": (4,)}, order=("i.0", "i.1"), vectorize="i.1")

    def template(draft: Draft) -> Schedule:
        return Schedule(tile={"i": (draft.fields["tile"],)}, order=("i.0", "i.1"))

    knobs = [
        Knob("tile_i", (2, 4, 8), 4, lambda d, v: d.fields.update(tile=v)),
        Knob("vec", (True, False), True, lambda d, v: d.extra.update(vectorize="i.1" if v else "")),
    ]
    only_wide = Constraint(
        "vectors need 4 lanes",
        ("tile_i", "vec"),
        lambda cols: (cols.map("tile_i", float) >= 4) | (cols.map("vec", float) == 0),
    )
    space = ConfigSpace(knobs, [only_wide], template)
    assert len(space) == 5 and space.schedule(space.default_index) == base
    assert {str(space.schedule(i).vectorize) for i in range(len(space))} == {"", "i.1"}
    assert isinstance(Columns(knobs, space.points).map("tile_i", float), np.ndarray)


@pytest.mark.parametrize("threads", [1, 2])
def test_points_of_every_kind_lower_to_llvm(threads: int) -> None:
    """Points that differ in every knob (a spread sample) lower through tp-to-loops and
    lower-to-llvm with the kernel in its harness (what a build worker does)."""
    module, params = import_model(conv_net())
    graph, schedule, _ = MlcDefaultPipeline(threads=threads, vector_bits=256, vnni_bits=0).stages()
    mlc.PassManager.parse(f"builtin.module({graph},{schedule})").run(module, params=params)
    text = {
        ir.StringAttr(f.operation.attributes["sym_name"]).value: f.operation.get_asm()
        for f in module.body.operations
        if "tp.kernel" in f.operation.attributes
    }
    name = next(n for n in text if n.startswith("fused_conv2d_relu"))
    one = ir.Module.parse("module {\n" + text[name] + "\n}", mlc.Context())
    view = max(
        (BlockView(o) for o in walk(one.operation) if o.name == "tp.block"),
        key=lambda v: np.prod(v.extents),
    )
    space = block_space(BlockFacts.of(view, view.schedule, threads, AVX2))
    rng = np.random.default_rng(threads)
    picks = {space.default_index} | {int(i) for i in rng.choice(len(space), 6, replace=False)}
    for index in sorted(picks):
        m = ir.Module.parse("module {\n" + text[name] + "\n}", mlc.Context())
        with m.context, ir.Location.unknown():
            set_schedule(kernel_of(m), view.name, space.schedule(index))
            harness(m, 1 << 16)
        mlc.PassManager.parse(lowering_pipeline(threads)).run(m)
        assert "llvm.func @mlc_main" in str(m), space.get(index)
