"""graph-to-tp gather, pad (reflect, edge) and tensor.concat, compiled and run against the
reference interpreter and independent numpy expressions."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir
from mlir.dialects import tensor

from helpers.graph_exec import check, lower_to_tp, rand, run_graph
from mlc.dialects.graph import builders as g
from mlc.errors import PassFailedError


def concat(values: list[ir.Value], dim: int) -> ir.Value:
    types = [ir.RankedTensorType(v.type) for v in values]
    shape = list(types[0].shape)
    shape[dim] = sum(t.shape[dim] for t in types)
    return tensor.ConcatOp(
        ir.RankedTensorType.get(shape, types[0].element_type), dim, values
    ).result


# -- gather -------------------------------------------------------------------------------------


@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
def test_gather_negative_indices_wrap(index_dtype: str) -> None:
    data = rand((5, 3), seed=1)
    idx = np.array([[0, -1], [4, -5], [2, 2]], index_dtype)
    got, ref = run_graph(lambda d, i: g.gather(d, i, axis=0), [data, idx])
    check(got[0], ref[0], np.take(data, idx.astype(np.int64) % 5, axis=0), rtol=0, atol=0)


def test_gather_inner_axis_of_int64_data() -> None:
    data = rand((2, 6, 3), "int64", seed=2)
    idx = np.array([5, 0, -2, 1], np.int64)
    got, ref = run_graph(lambda d, i: g.gather(d, i, axis=-2), [data, idx])
    check(got[0], ref[0], data[:, [5, 0, 4, 1], :])


def test_gather_scalar_index_drops_the_axis() -> None:
    data = rand((4, 5), seed=3)
    idx = np.array(-2, np.int64)
    got, ref = run_graph(lambda d, i: g.gather(d, i, axis=1), [data, idx])
    check(got[0], ref[0], data[:, 3], rtol=0, atol=0)


def test_gather_bool_data_and_fused_consumer() -> None:
    """Embedding-style lookup in a params-blob table, then an elementwise op in the same kernel."""
    table = {"emb": rand((7, 4), seed=4)}
    ids = np.array([[6, 0, 3]], np.int32)
    got, ref = run_graph(lambda i, t: g.relu(g.gather(t, i, axis=0)), [ids], table)
    check(got[0], ref[0], np.maximum(table["emb"][ids], 0), rtol=0, atol=0)
    mask = rand((3, 4), seed=5) > 0
    got, ref = run_graph(lambda m, i: g.gather(m, i, axis=1), [mask, np.array([3, 1], np.int64)])
    check(got[0], ref[0], mask[:, [3, 1]])


# -- pad ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["reflect", "edge"])
@pytest.mark.parametrize("pads", [(0, 1, 2, 0, 2, 1), (2, 0, 0, 1, 0, 3), (-1, 2, 1, 0, 1, -2)])
def test_pad_reflect_edge(mode: str, pads: tuple[int, ...]) -> None:
    x = rand((4, 5, 3), seed=6)
    got, ref = run_graph(lambda v: g.pad(v, pads=pads, mode=mode), [x])
    rank = x.ndim
    begins, ends = pads[:rank], pads[rank:]
    cropped = x[tuple(slice(max(-b, 0), d - max(-e, 0)) for d, b, e in zip(x.shape, begins, ends))]
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(begins, ends)]
    check(got[0], ref[0], np.pad(cropped, widths, mode=mode), rtol=0, atol=0)


def test_pad_reflect_wider_than_the_input() -> None:
    """Pads of n - 1 or more reflect repeatedly (periodic), as numpy does."""
    x = np.arange(3, dtype=np.float32).reshape(1, 3)
    pads = (0, 5, 0, 4)
    got, ref = run_graph(lambda v: g.pad(v, pads=pads, mode="reflect"), [x])
    expected = np.array([[1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2]], np.float32)
    check(got[0], ref[0], expected, rtol=0, atol=0)


def test_pad_edge_int64_and_single_element_reflect() -> None:
    x = rand((1, 4), "int64", seed=7)
    got, ref = run_graph(
        lambda v: [
            g.pad(v, pads=(2, 1, 1, 2), mode="edge"),
            g.pad(v, pads=(2, 0, 1, 0), mode="reflect"),
        ],
        [x],
    )
    check(got[0], ref[0], np.pad(x, ((2, 1), (1, 2)), mode="edge"), what="edge")
    check(got[1], ref[1], np.pad(x, ((2, 1), (0, 0)), mode="reflect"), what="reflect of one row")


def test_pad_after_elementwise_in_one_kernel() -> None:
    """pad follows a fused elementwise op; the constant-mode pad stays an inline padded read."""
    x = rand((2, 3), seed=8)
    got, ref = run_graph(
        lambda v: [
            g.neg(g.pad(g.exp(v), pads=(1, 1, 1, 1), mode="reflect")),
            g.pad(g.exp(v), pads=(1, 0, 0, 2), mode="constant", value=-1.0),
        ],
        [x],
    )
    check(got[0], ref[0], -np.pad(np.exp(x), 1, mode="reflect"), what="reflect")
    check(
        got[1], ref[1], np.pad(np.exp(x), ((1, 0), (0, 2)), constant_values=-1.0), what="constant"
    )


def test_pad_edge_of_emptied_dim_is_rejected() -> None:
    x = rand((2, 3), seed=9)
    with pytest.raises(
        PassFailedError, match="graph.pad' in edge mode pads a dimension with no elements"
    ):
        lower_to_tp(lambda v: g.pad(v, pads=(0, -3, 0, 1), mode="edge"), [x])


# -- tensor.concat ------------------------------------------------------------------------------


def test_concat_three_inputs_of_different_sizes() -> None:
    a, b, c = rand((2, 1, 3), seed=10), rand((2, 4, 3), seed=11), rand((2, 2, 3), seed=12)
    got, ref = run_graph(lambda x, y, z: concat([x, y, z], 1), [a, b, c])
    check(got[0], ref[0], np.concatenate([a, b, c], axis=1), rtol=0, atol=0)


def test_concat_int64_and_bool_on_axis_0() -> None:
    a, b, c = (
        rand((1, 3), "int64", seed=13),
        rand((3, 3), "int64", seed=14),
        rand((2, 3), "int64", seed=15),
    )
    got, ref = run_graph(
        lambda x, y, z: [concat([x, y, z], 0), concat([g.greater(x, y), g.less(z, z)], 0)],
        [a, b, c],
    )
    check(got[0], ref[0], np.concatenate([a, b, c], axis=0), what="int64")
    check(got[1], ref[1], np.concatenate([a > b, c < c], axis=0), what="bool")


def test_concat_fuses_producers_and_consumers() -> None:
    """relu and the broadcast add run inside the concat kernel: one block per input, each with
    the add applied (no copy into a temporary and second pass)."""
    a, b = rand((2, 3), seed=16), rand((2, 2), seed=17)
    one = np.ones((5,), np.float32)

    def body(x: ir.Value, y: ir.Value, w: ir.Value) -> ir.Value:
        return g.add(concat([g.relu(x), y], 1), w)

    got, ref = run_graph(body, [a, b, one])
    check(got[0], ref[0], np.concatenate([np.maximum(a, 0), b], axis=1) + 1, rtol=0, atol=0)
    text = lower_to_tp(body, [a, b, one])
    assert text.count('"tp.block"') == 2 and text.count("func.func private") == 1, text
