"""What happens to each ONNX node, decided before anything is converted.

A node is *folded* (evaluated at import, never a graph op) when every input is a constant
(an initializer or the result of another folded node), or when it only reads the static shape
of its input (Shape, Size). Every other node needs a converter; all nodes without one are
reported together in one `UnsupportedOpError`, before any conversion starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mlc.errors import UnsupportedOpError, UnsupportedOpsetError

from .converters.registry import ConverterEntry, NotImplementedVersion, lookup
from .loader import DEFAULT_DOMAINS

if TYPE_CHECKING:
    import onnx

# Results differ from run to run: never folded.
NONDETERMINISTIC = frozenset(
    {
        "RandomNormal",
        "RandomNormalLike",
        "RandomUniform",
        "RandomUniformLike",
        "Multinomial",
        "Bernoulli",
    }
)
# Depend only on the (always static) type of their input.
SHAPE_ONLY = frozenset({"Shape", "Size"})
# Inputs whose element type alone matters (CastLike's `target_type`): a node is folded when its
# other inputs are constants (attention bodies cast -inf like a computed tensor).
TYPE_ONLY_INPUTS = {"CastLike": (1,)}
# Ops mlc supports only as part of a constant sub-graph: say so when they are not constant.
FOLD_ONLY = frozenset({"ConstantOfShape", "Range", "Constant", "NonZero", "EyeLike", "OneHot"})
# onnx.reference implements only the newest semantics of these (e.g. Softmax-1 without the
# flatten-to-2-D rule): below the given opset they are converted, never folded.
REFERENCE_NEWEST_ONLY = {"Softmax": 13, "LogSoftmax": 13, "Hardmax": 13}


@dataclass(frozen=True)
class PlannedNode:
    node: onnx.NodeProto
    name: str  # the node's name, or a generated unique `<OpType>_<index>`
    domain: str
    opset: int
    fold: bool
    entry: ConverterEntry | None  # None for folded nodes


def plan_graph(graph: onnx.GraphProto, opsets: dict[str, int]) -> list[PlannedNode]:
    """Plan every node; raises one UnsupportedOpError listing everything unsupported."""
    constants = {init.name for init in graph.initializer}
    planned: list[PlannedNode] = []
    problems: dict[tuple[str, str, int], tuple[str, Exception | None, list[str]]] = {}
    for node, name in zip(graph.node, _node_names(graph)):
        domain = "" if node.domain in DEFAULT_DOMAINS else node.domain
        opset = opsets.get(domain, 0)
        if domain in opsets and _foldable(node, domain, opset, constants):
            constants.update(o for o in node.output if o)
            planned.append(PlannedNode(node, name, domain, opset, True, None))
            continue
        found = _converter(node, domain, opset, opsets)
        if isinstance(found, ConverterEntry):
            planned.append(PlannedNode(node, name, domain, opset, False, found))
        else:
            problems.setdefault((domain, node.op_type, opset), (*found, []))[2].append(name)
    if problems:
        raise _report(problems)
    return planned


def _converter(
    node: onnx.NodeProto, domain: str, opset: int, opsets: dict[str, int]
) -> ConverterEntry | tuple[str, Exception | None]:
    """The node's converter, or why there is none (and the error behind it)."""
    if domain not in opsets:
        return f"domain '{domain}' is not in the model's opset_import", None
    try:
        entry = lookup(domain, node.op_type, opset)
    except UnsupportedOpsetError as e:
        return f"opset {opset} is below the earliest implemented version {e.min_supported}", e
    except NotImplementedVersion as e:
        return str(e), e
    if entry is None:
        if node.op_type in FOLD_ONLY:
            return "supported only when its inputs are constant (computable at import)", None
        return "no converter", None
    return entry


def _foldable(node: onnx.NodeProto, domain: str, opset: int, constants: set[str]) -> bool:
    if domain != "" or node.op_type in NONDETERMINISTIC:
        return False
    if opset < REFERENCE_NEWEST_ONLY.get(node.op_type, 0):
        return False
    if any(a.HasField("g") or a.graphs for a in node.attribute):  # If, Loop, Scan: sub-graphs
        return False
    if node.op_type in SHAPE_ONLY:
        return True
    type_only = TYPE_ONLY_INPUTS.get(node.op_type, ())
    return all(i in constants for k, i in enumerate(node.input) if i and k not in type_only)


def _node_names(graph: onnx.GraphProto) -> list[str]:
    """Node names for locations: the model's, or `<OpType>_<index>` made unique."""
    taken = {n.name for n in graph.node if n.name}
    names = []
    for index, node in enumerate(graph.node):
        name = node.name
        if not name:
            base = name = f"{node.op_type}_{index}"
            suffix = 1
            while name in taken:
                name, suffix = f"{base}_{suffix}", suffix + 1
            taken.add(name)
        names.append(name)
    return names


def _report(
    problems: dict[tuple[str, str, int], tuple[str, Exception | None, list[str]]],
) -> UnsupportedOpError:
    lines = []
    count = 0
    for (domain, op_type, opset), (reason, _, nodes) in sorted(problems.items()):
        op = f"{domain}.{op_type}" if domain else op_type
        shown = ", ".join(nodes[:8]) + (f", ... ({len(nodes)} nodes)" if len(nodes) > 8 else "")
        lines.append(f"  {op} (opset {opset}): {reason}; nodes: {shown}")
        count += len(nodes)
    message = (
        f"the model uses {len(problems)} unsupported operator(s) in {count} node(s):\n"
        + "\n".join(lines)
    )
    errors = [e for _, e, _ in problems.values()]
    if all(isinstance(e, UnsupportedOpsetError) for e in errors):
        first = errors[0]
        assert isinstance(first, UnsupportedOpsetError)
        opset_error = UnsupportedOpsetError(first.op_type, first.opset, first.min_supported)
        opset_error.args = (message,)
        return opset_error
    return UnsupportedOpError(message)
