"""Binding a manifest's symbolic dims to the sizes of the arrays given at run time.

    shapes = SymbolicShapes(manifest)
    env = shapes.bind({"input_ids": (2, 7), "attention_mask": (2, 7)})   # {"batch": 2, "seq": 7}
    shapes.check(env)                  # the manifest's shape checks, before a call
    shapes.output_shapes(env)          # [(2, 7, 768)]

A dim that is exactly a symbol binds it (within its bounds); an expression dim (`2*seq`) is
checked once its symbols are bound; two inputs giving one symbol different sizes is an error.
Every error is a `ShapeError` naming the input, the axis, the symbol and both values. Pure
Python on `mlc.symbolic`: the runtime binds shapes without importing MLIR.
"""

from __future__ import annotations

from collections.abc import Mapping

from mlc import symbolic
from mlc.contract import Manifest, TensorSpec, check_sides, plain_symbol
from mlc.errors import RuntimeInputError


class ShapeError(RuntimeInputError):
    """An input size the module does not admit: a static dim that differs, a symbol out of
    its bounds, two inputs disagreeing on a symbol, or a failed shape check."""


def _shape_text(shape: tuple[int, ...]) -> str:
    return f"[{','.join(str(d) for d in shape)}]"


class SymbolicShapes:
    """The parsed dims of a manifest's inputs, outputs and shape checks."""

    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        self.inputs = [spec.dims() for spec in manifest.inputs]
        self.outputs = [spec.dims() for spec in manifest.outputs]
        self.checks = [(text, *check_sides(text)) for text in manifest.shape_checks]
        self.bounds = dict(manifest.symbols)
        # per input axis: (the symbol it binds or None, the expression to check or None)
        self._axes = [
            [
                (None, None)
                if isinstance(d, int)
                else (name, None)
                if (name := plain_symbol(d)) is not None
                else (None, d)
                for d in dims
            ]
            for dims in self.inputs
        ]

    def bind(self, shapes: Mapping[int, tuple[int, ...]]) -> dict[str, int]:
        """The symbols' values from the shapes of some inputs (by index); ShapeError if one
        does not fit its spec or they disagree."""
        env: dict[str, int] = {}
        where: dict[str, tuple[str, int]] = {}
        for index in sorted(shapes):
            spec, shape = self.manifest.inputs[index], tuple(shapes[index])
            dims = self.inputs[index]
            if len(shape) != len(dims):
                raise ShapeError(
                    f"input '{spec.name}' expects {spec.describe()} (rank {len(dims)}), got "
                    f"shape {_shape_text(shape)} (rank {len(shape)})"
                )
            for axis, (dim, size) in enumerate(zip(dims, shape)):
                if isinstance(dim, int):
                    if dim != size:
                        raise ShapeError(
                            f"input '{spec.name}' expects {spec.describe()}: axis {axis} must be "
                            f"{dim}, got {size} (shape {_shape_text(shape)})"
                        )
                    continue
                name = self._axes[index][axis][0]
                if name is None:
                    continue
                if name in env and env[name] != size:
                    first, first_axis = where[name]
                    raise ShapeError(
                        f"inputs disagree on the dim '{name}': input '{first}' axis "
                        f"{first_axis} has {env[name]}, input '{spec.name}' axis {axis} has "
                        f"{size}"
                    )
                self._check_bounds(name, size, spec, axis)
                env[name], where[name] = size, (spec.name, axis)
        for index in sorted(shapes):  # expression dims, once their symbols are bound
            spec, shape = self.manifest.inputs[index], tuple(shapes[index])
            for axis, size in enumerate(shape):
                dim = self._axes[index][axis][1]
                if dim is None or not symbolic.free_symbols(dim) <= env.keys():
                    continue
                expected = symbolic.evaluate(dim, env)
                if expected != size:
                    raise ShapeError(
                        f"input '{spec.name}' axis {axis} is '{dim}' = {expected} with "
                        f"{_values(dim, env)}, got {size} (shape {_shape_text(shape)})"
                    )
        return env

    def _check_bounds(self, name: str, size: int, spec: TensorSpec, axis: int) -> None:
        lo, hi = self.bounds.get(name, (1, None))
        if size < lo or (hi is not None and size > hi):
            allowed = f"[{lo}, {'unbounded' if hi is None else hi}]"
            raise ShapeError(
                f"input '{spec.name}' axis {axis} (the dim '{name}') is {size}, outside the "
                f"bounds {allowed} the module was compiled for; recompile with wider "
                "--input-shapes bounds to run this size"
            )

    def check(self, env: Mapping[str, int]) -> None:
        """ShapeError for the first shape check that fails with these symbol values."""
        for text, a, b in self.checks:
            if symbolic.evaluate(a, env) != symbolic.evaluate(b, env):
                symbols = symbolic.free_symbols(a) | symbolic.free_symbols(b)
                raise ShapeError(
                    f"the inputs fail the model's shape check '{text}' "
                    f"({symbolic.evaluate(a, env)} != {symbolic.evaluate(b, env)} with "
                    f"{_values(symbols, env)}): the model cannot run at these sizes"
                )

    def output_shapes(self, env: Mapping[str, int]) -> list[tuple[int, ...]]:
        shapes = []
        for spec, dims in zip(self.manifest.outputs, self.outputs):
            shape = tuple(symbolic.evaluate(d, env) for d in dims)
            if any(d < 0 for d in shape):
                names = set().union(*map(symbolic.free_symbols, dims))
                raise ShapeError(
                    f"output '{spec.name}' ({spec.describe()}) has a negative size "
                    f"{_shape_text(shape)} with {_values(names, env)}"
                )
            shapes.append(shape)
        return shapes


def _values(dim: object, env: Mapping[str, int]) -> str:
    names = dim if isinstance(dim, set) else symbolic.free_symbols(dim)  # type: ignore[arg-type]
    return ", ".join(f"{n} = {env[n]}" for n in sorted(names))
