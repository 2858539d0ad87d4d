"""The text of `mlc-opt --list-passes`: every mlc pass and named pipeline, with options."""

from __future__ import annotations

from mlc.passes import registry
from mlc.passes.base import format_option_value


def _describe(cls: type, indent: str = "  ") -> list[str]:
    lines = [f"{indent}{cls.name:<28} {cls.summary()}"]  # type: ignore[attr-defined]
    for opt in cls.options():  # type: ignore[attr-defined]
        default = format_option_value(opt.default)
        lines.append(
            f"{indent}    {opt.name}=<{opt.type_text}> (default: {default})"
            + (f"  {opt.doc}" if opt.doc else "")
        )
    return lines


def list_passes() -> str:
    lines = ["mlc passes (use inside builtin.module(...)):"]
    for name in sorted(registry.all_passes()):
        cls = registry.get_pass(name)
        assert cls is not None
        lines += _describe(cls)
    lines += ["", "Named pipelines:"]
    for name in sorted(registry.ALL_PIPELINES):
        cls = registry.get_pipeline(name)
        assert cls is not None
        lines += _describe(cls)
        lines.append(f"      = {cls().expand()}")
    upstream = registry.upstream_pass_names()
    lines += [
        "",
        f"All {len(upstream)} upstream MLIR passes and pipelines are available too "
        "(e.g. canonicalize, cse, convert-linalg-to-loops); see `mlir-opt --help`.",
    ]
    return "\n".join(lines) + "\n"
