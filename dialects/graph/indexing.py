"""Data-dependent indexing ops of the `graph` dialect: element and N-d gathers and scatters.

Indices are i32 or i64 and may be negative (counted from the end of their dim). Scatters take
a `reduction`: `none` overwrites (a position written twice keeps the last update), `add`,
`mul`, `max` and `min` combine every update with the element already there.
"""

from __future__ import annotations

from .spec import AttrSpec, OpSpec, TensorT, need, norm_axis, present, register

REDUCTIONS = ("none", "add", "mul", "max", "min")


def _indices(t: TensorT) -> None:
    need(t.dtype in ("i32", "i64"), f"indices must be i32 or i64, got {t.dtype}")


def _reduction(attrs: dict[str, object]) -> None:
    r = str(attrs["reduction"])
    need(r in REDUCTIONS, f"reduction '{r}' is not one of {', '.join(REDUCTIONS)}")


def _within(idx: TensorT, data: TensorT, axis: int, what: str) -> None:
    """Same rank; every dim but `axis` at most the data's (the positions must exist)."""
    need(idx.rank == data.rank, f"{what} {idx} must have the rank of the data {data}")
    for d, (a, b) in enumerate(zip(idx.shape, data.shape)):
        need(d == axis or a <= b, f"{what} {idx} exceeds the data {data} in dim {d}")


def infer_gather_elements(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    data, idx = present(ins, 0), present(ins, 1)
    _indices(idx)
    axis = norm_axis(int(attrs["axis"]), data.rank)  # type: ignore[arg-type]
    _within(idx, data, axis, "indices")
    return [TensorT(idx.shape, data.dtype)]


def _nd(data: TensorT, idx: TensorT, batch: int) -> int:
    """The number of data dims one index tuple addresses (the last dim of `indices`)."""
    _indices(idx)
    need(batch >= 0, f"batch_dims {batch} must be non-negative")
    need(idx.rank > batch and data.rank > batch, f"batch_dims {batch} needs rank > {batch}")
    need(
        idx.shape[:batch] == data.shape[:batch],
        f"the first {batch} dims of indices {idx} and data {data} must match",
    )
    k = idx.shape[-1]
    need(1 <= k <= data.rank - batch, f"index tuples of {k} entries do not address data {data}")
    return k


def infer_gather_nd(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    data, idx = present(ins, 0), present(ins, 1)
    batch = int(attrs["batch_dims"])  # type: ignore[call-overload]
    k = _nd(data, idx, batch)
    return [TensorT(idx.shape[:-1] + data.shape[batch + k :], data.dtype)]


def infer_scatter_elements(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    data, idx, upd = present(ins, 0), present(ins, 1), present(ins, 2)
    _indices(idx)
    _reduction(attrs)
    axis = norm_axis(int(attrs["axis"]), data.rank)  # type: ignore[arg-type]
    need(upd.shape == idx.shape, f"updates {upd} and indices {idx} must have the same shape")
    need(upd.dtype == data.dtype, f"updates {upd} must have the element type of data {data}")
    _within(idx, data, axis, "indices")
    return [data]


def infer_scatter_nd(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    data, idx, upd = present(ins, 0), present(ins, 1), present(ins, 2)
    _reduction(attrs)
    k = _nd(data, idx, 0)
    want = idx.shape[:-1] + data.shape[k:]
    need(upd.shape == want, f"updates {upd} must have shape {list(want)}")
    need(upd.dtype == data.dtype, f"updates {upd} must have the element type of data {data}")
    return [data]


_REDUCTION = AttrSpec("reduction", "str", "none", "none, add, mul, max or min")

register(
    OpSpec(
        "gather_elements",
        ("input", "indices"),
        (AttrSpec("axis", "int", 0),),
        "out[p] = input[p with p[axis] replaced by indices[p]]; the result has the indices' shape.",
        "tensor",
        infer_gather_elements,
        "GatherElements",
    ),
    OpSpec(
        "gather_nd",
        ("input", "indices"),
        (AttrSpec("batch_dims", "int", 0),),
        "Slices of `input` addressed by the index tuples in the last dim of `indices`.",
        "tensor",
        infer_gather_nd,
        "GatherND",
    ),
    OpSpec(
        "scatter_elements",
        ("input", "indices", "updates"),
        (AttrSpec("axis", "int", 0), _REDUCTION),
        "A copy of `input` with updates[p] written (or combined) at p with p[axis] = indices[p].",
        "tensor",
        infer_scatter_elements,
        "ScatterElements",
    ),
    OpSpec(
        "scatter_nd",
        ("input", "indices", "updates"),
        (_REDUCTION,),
        "A copy of `input` with the slices of `updates` written (or combined) at index tuples.",
        "tensor",
        infer_scatter_nd,
        "ScatterND",
    ),
)
