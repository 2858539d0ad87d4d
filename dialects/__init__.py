"""mlc's dialects: `graph` (tensor level, ONNX-like) and `tp` (tensor programs)."""
