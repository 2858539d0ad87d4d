"""Write or print the parameter tables of the graph-* pass lit tests.

graph_params.py write <name> <out.npz>   # a named table defined below
graph_params.py print <in.npz>           # one line per array: name dtype shape values
"""

import sys

import numpy as np


def _tables() -> dict[str, dict[str, np.ndarray]]:
    return {
        "fold": {
            "w": np.arange(32, dtype=np.float32) / 8,
            "v": np.array([[1, 2, 3], [4, 5, 6]], np.float32),
            "k": np.arange(24, dtype=np.float32).reshape(4, 6),
            "unused": np.zeros(2, np.float32),
        },
        "simplify": {
            "conv.w": ((np.arange(108) % 7 - 3) / 4).astype(np.float32).reshape(4, 3, 3, 3),
            "conv.b": np.array([0.5, -0.5, 1.0, 0.0], np.float32),
            "bn.scale": np.array([1.0, 2.0, 0.5, 1.5], np.float32),
            "bn.bias": np.array([0.0, 1.0, -1.0, 0.5], np.float32),
            "bn.mean": np.array([0.1, 0.2, 0.3, 0.4], np.float32),
            "bn.var": np.array([1.0, 4.0, 0.25, 9.0], np.float32),
        },
    }


def main(argv: list[str]) -> None:
    if argv[0] == "write":
        np.savez(argv[2], **_tables()[argv[1]])
        return
    with np.load(argv[1]) as data:
        for name in sorted(data.files):
            value = data[name]
            text = np.array2string(
                value.reshape(-1),
                precision=4,
                separator=" ",
                max_line_width=10**6,
                suppress_small=True,
            )
            print(f"{name} {value.dtype} {list(value.shape)} {text}")


if __name__ == "__main__":
    main(sys.argv[1:])
