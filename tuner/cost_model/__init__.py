"""Cost models for model-based tuners: `create("xgb" | "random")`."""

from __future__ import annotations

from typing import Literal

from .base import CostModel


def create(kind: Literal["xgb", "random"], *, seed: int = 0) -> CostModel:
    """A cost model by kind; `xgb` needs the `xgboost` package (mlc[tune])."""
    if kind == "xgb":
        from .xgb import XGBoostCostModel

        return XGBoostCostModel(seed=seed)
    if kind == "random":
        from .random import RandomCostModel

        return RandomCostModel(seed=seed)
    raise ValueError(f"unknown cost model '{kind}'; expected xgb or random")


__all__ = ["CostModel", "create"]
