"""ONNX converters, one per (domain, op_type, since_version), grouped by category module.

`registry.load_converters()` imports the category modules listed in `registry.CATEGORY_MODULES`;
each registers its converters with the `@converter(op_type, since=N)` decorator.
"""
