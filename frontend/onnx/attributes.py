"""Typed access to the attributes of one ONNX node, with its defaults."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mlc.errors import ModelLoadError

from .tensors import tensor_array

if TYPE_CHECKING:
    import numpy as np
    import onnx

_REQUIRED: Any = object()


class Attrs:
    """`Attrs(node).int("axis", 1)`; a missing attribute without default is a ModelLoadError."""

    def __init__(self, node: onnx.NodeProto, where: str) -> None:
        self._attrs = {a.name: a for a in node.attribute}
        self._where = where

    def has(self, name: str) -> bool:
        return name in self._attrs

    def _get(self, name: str, default: Any) -> Any:
        from onnx import helper

        attr = self._attrs.get(name)
        if attr is None:
            if default is _REQUIRED:
                raise ModelLoadError(f"{self._where}: required attribute '{name}' is missing")
            return default
        return helper.get_attribute_value(attr)

    def int(self, name: str, default: int = _REQUIRED) -> int:
        return int(self._get(name, default))

    def float(self, name: str, default: float = _REQUIRED) -> float:
        return float(self._get(name, default))

    def str(self, name: str, default: str = _REQUIRED) -> str:
        value = self._get(name, default)
        try:
            return value.decode() if isinstance(value, bytes) else str(value)
        except UnicodeDecodeError:
            raise ModelLoadError(f"{self._where}: attribute '{name}' is not UTF-8 text") from None

    def ints(self, name: str, default: list[int] | None = _REQUIRED) -> list[int] | None:
        value = self._get(name, default)
        return None if value is None else [int(v) for v in value]

    def floats(self, name: str, default: list[float] | None = _REQUIRED) -> list[float] | None:
        value = self._get(name, default)
        return None if value is None else [float(v) for v in value]

    def tensor(self, name: str, default: np.ndarray | None = _REQUIRED) -> np.ndarray | None:
        """A TENSOR attribute as a numpy array."""
        from onnx import TensorProto

        value = self._get(name, default)
        if isinstance(value, TensorProto):
            return tensor_array(value, f"attribute '{name}'")
        return value

    def strs(self, name: str, default: list[str] | None = _REQUIRED) -> list[str] | None:
        value = self._get(name, default)
        if value is None:
            return None
        return [v.decode() if isinstance(v, bytes) else str(v) for v in value]

    def graph(self, name: str) -> onnx.GraphProto:
        """A GRAPH attribute (a sub-graph of If, Loop, Scan)."""
        return self._get(name, _REQUIRED)
