"""What happens to each ONNX node, decided before anything is converted.

A node is *folded* (evaluated at import by ONNX's reference evaluator, never a graph op) when
every input is a constant (an initializer or the result of another folded node). Generators
(`IMPORT_COMPUTED`: Constant, Shape, Range, the windows ...) are never folded that way: their
converters compute their values at import themselves, from attributes, static types and
constant inputs. Every other node needs a converter; all nodes without one are reported
together in one `UnsupportedOpError`, before any conversion starts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mlc.errors import ModelLoadError, UnsupportedOpError, UnsupportedOpsetError

from .converters.registry import ConverterEntry, NotImplementedVersion, lookup, registered_ops
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
# Inputs whose element type alone matters (CastLike's `target_type`): a node is folded when its
# other inputs are constants (attention bodies cast -inf like a computed tensor).
TYPE_ONLY_INPUTS = {"CastLike": (1,)}
# Converters compute these at import (numpy); their results are constants when every input is.
IMPORT_COMPUTED = frozenset(
    {
        "Constant",
        "ConstantOfShape",
        "Shape",
        "Size",
        "EyeLike",
        "Range",
        "HannWindow",
        "HammingWindow",
        "BlackmanWindow",
        "MelWeightMatrix",
    }
)
# ... and these only read the (always static) type of their input, if any: always constants.
STATIC_RESULT = frozenset({"Constant", "Shape", "Size", "EyeLike"})
# Ops whose output shape depends on the input values: only ever folded.
VALUE_SHAPED = frozenset({"NonZero", "Unique", "NonMaxSuppression"})
# onnx.reference implements only the newest semantics of these (e.g. Softmax-1 without the
# flatten-to-2-D rule): below the given opset they are converted, never folded.
REFERENCE_NEWEST_ONLY = {"Softmax": 13, "LogSoftmax": 13, "Hardmax": 13}
# Converted even with constant inputs when the input is an initializer of one of these ONNX
# element types: graph-fuse-qdq reads the quantized weights (graph-fold-constants folds the rest).
KEPT_QUANTIZED = {"DequantizeLinear": frozenset({2, 3, 4, 5, 6})}  # (u)int8, (u)int16, int32


@dataclass(frozen=True)
class PlannedNode:
    node: onnx.NodeProto
    name: str  # the node's name, or a generated unique `<OpType>_<index>`
    domain: str
    opset: int
    fold: bool
    entry: ConverterEntry | None  # None for folded nodes

    @property
    def reads_values(self) -> bool:
        """Whether converting the node reads its inputs' values, not only their static types."""
        return not self.fold and not (self.domain == "" and self.node.op_type in STATIC_RESULT)


def plan_graph(
    graph: onnx.GraphProto, opsets: dict[str, int], outer_constants: Iterable[str] = ()
) -> list[PlannedNode]:
    """Plan every node; raises one UnsupportedOpError listing everything unsupported.

    `outer_constants`: names of constants a sub-graph can read from its enclosing graphs."""
    constants = {init.name for init in graph.initializer} | set(outer_constants)
    kept = {init.name: init.data_type for init in graph.initializer}
    _check_single_producers(graph)
    planned: list[PlannedNode] = []
    problems: dict[tuple[str, str, int], tuple[str, Exception | None, list[str]]] = {}
    for node, name in zip(graph.node, _node_names(graph)):
        domain = "" if node.domain in DEFAULT_DOMAINS else node.domain
        opset = opsets.get(domain, 0)
        if domain in opsets and _foldable(node, domain, opset, constants, kept):
            constants.update(o for o in node.output if o)
            planned.append(PlannedNode(node, name, domain, opset, True, None))
            continue
        found = _converter(node, domain, opset, opsets)
        if isinstance(found, ConverterEntry):
            planned.append(PlannedNode(node, name, domain, opset, False, found))
            if _constant_result(node, domain, constants):
                constants.update(o for o in node.output if o)
        else:
            problems.setdefault((domain, node.op_type, opset), (*found, []))[2].append(name)
    if problems:
        raise _report(problems)
    return planned


def _check_single_producers(graph: onnx.GraphProto) -> None:
    """Every value has one producer (ONNX graphs are in SSA form); ModelLoadError if not."""
    seen: dict[str, str] = {}
    for node, name in zip(graph.node, _node_names(graph)):
        for out in node.output:
            if out and out in seen:
                raise ModelLoadError(
                    f"value '{out}' is produced by both node {seen[out]} and node '{name}' "
                    f"({node.op_type}); an ONNX graph gives every value one producer: the "
                    "model is corrupt"
                )
            seen[out] = f"'{name}' ({node.op_type})"


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
        if node.op_type in VALUE_SHAPED:
            return (
                "its output shape depends on its input values and mlc compiles static shapes: "
                "supported only when its inputs are constant (it is then folded at import)"
            ), None
        if domain == "com.microsoft":
            known = sorted(op for d, op, _ in registered_ops() if d == domain)
            return (
                f"no converter (of onnxruntime's com.microsoft contrib ops mlc imports "
                f"{', '.join(known)})"
            ), None
        return "no converter", None
    return entry


def _foldable(
    node: onnx.NodeProto, domain: str, opset: int, constants: set[str], initializers: dict[str, int]
) -> bool:
    if domain != "" or node.op_type in NONDETERMINISTIC:
        return False
    keep = KEPT_QUANTIZED.get(node.op_type)
    if keep is not None and node.input and initializers.get(node.input[0]) in keep:
        return False
    if opset < REFERENCE_NEWEST_ONLY.get(node.op_type, 0):
        return False
    if any(a.HasField("g") or a.graphs for a in node.attribute):  # If, Loop, Scan: sub-graphs
        return False
    if node.op_type in IMPORT_COMPUTED:
        return False
    type_only = TYPE_ONLY_INPUTS.get(node.op_type, ())
    return all(i in constants for k, i in enumerate(node.input) if i and k not in type_only)


def _constant_result(node: onnx.NodeProto, domain: str, constants: set[str]) -> bool:
    """Whether the converter of a generator returns constants (it fails on the others)."""
    if domain != "" or node.op_type not in IMPORT_COMPUTED:
        return False
    return node.op_type in STATIC_RESULT or all(i in constants for i in node.input if i)


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


def node_op_types(graph: onnx.GraphProto) -> dict[str, str]:
    """Op type of each node of the graph, by the name its ops' locations carry."""
    return dict(zip(_node_names(graph), (node.op_type for node in graph.node)))
