"""The ONNX importer: `importer.from_onnx` turns a model into graph-dialect ops.

Only this package imports `onnx`. Layout: `loader` (files, external data), `graph_inputs`
(static input shapes), `plan` (fold or convert each node; everything unsupported reported at
once), `folding` (constant sub-graphs), `context` (what converters see), `converters/`
(one module per op category), `shape_check` (cross-check with ONNX shape inference), `files`
(what `mlc import` writes).
"""
