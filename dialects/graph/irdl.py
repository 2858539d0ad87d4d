"""The IRDL text of the `graph` dialect, generated from the op specs.

Each operand and result gets its own constraint variable: IRDL variables unify, so sharing one
would force equal types. Shape rules live in Python (`graph-verify`), since IRDL cannot state them.
"""

from __future__ import annotations

from .spec import IRDL_ATTR_BASE, OPS, OpSpec


def _op_irdl(spec: OpSpec) -> list[str]:
    lines = [f"  irdl.operation @{spec.name} {{"]
    operands: list[str] = []
    for i, name in enumerate(spec.operands):
        lines.append(f'    %o{i} = irdl.base "!builtin.tensor"')
        optional = name.endswith("?")
        operands.append(f"{name.rstrip('?')}: {'optional ' if optional else ''}%o{i}")
    lines.append(f"    irdl.operands({', '.join(operands)})")
    results: list[str] = []
    for i, name in enumerate(spec.results):
        lines.append(f'    %r{i} = irdl.base "!builtin.tensor"')
        results.append(f"{name}: %r{i}")
    lines.append(f"    irdl.results({', '.join(results)})")
    if spec.attrs:
        entries: list[str] = []
        for i, attr in enumerate(spec.attrs):
            base = IRDL_ATTR_BASE[attr.kind]
            lines.append(f'    %a{i} = irdl.base "{base}"' if base else f"    %a{i} = irdl.any")
            entries.append(f'"{attr.name}" = %a{i}')
        lines.append(f"    irdl.attributes {{{', '.join(entries)}}}")
    lines.append("  }")
    return lines


def graph_irdl() -> str:
    lines = [
        "irdl.dialect @graph {",
        "  irdl.attribute @param {",
        '    %s = irdl.base "#builtin.string"',
        "    irdl.parameters(name: %s)",
        "  }",
    ]
    for spec in OPS.values():
        lines += _op_irdl(spec)
    lines.append("}")
    return "\n".join(lines) + "\n"
