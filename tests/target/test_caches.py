"""The host's L2 size, read from a sysfs cache directory (what tp-default-schedule's reduction
blocking is sized for)."""

from __future__ import annotations

import pathlib

from mlc.target import DEFAULT_L2_BYTES, host_l2_bytes, l2_bytes_in


def _index(root: pathlib.Path, n: int, level: str, size: str) -> None:
    d = root / f"index{n}"
    d.mkdir(parents=True)
    (d / "level").write_text(level + "\n")
    (d / "size").write_text(size + "\n")


def test_zen3_and_zen5_layouts(tmp_path: pathlib.Path) -> None:
    for name, l2, want in (("zen3", "512K", 512 << 10), ("zen5", "1024K", 1 << 20)):
        root = tmp_path / name
        _index(root, 0, "1", "32K")
        _index(root, 1, "1", "32K")
        _index(root, 2, "2", l2)
        _index(root, 3, "3", "32768K")
        assert l2_bytes_in(root) == want


def test_missing_or_odd_entries_fall_back(tmp_path: pathlib.Path) -> None:
    assert l2_bytes_in(tmp_path / "absent") == DEFAULT_L2_BYTES
    _index(tmp_path, 0, "2", "lots")
    assert l2_bytes_in(tmp_path) == DEFAULT_L2_BYTES
    _index(tmp_path, 1, "2", "2M")
    assert l2_bytes_in(tmp_path) == 2 << 20


def test_the_host_reports_a_size() -> None:
    assert host_l2_bytes() >= 1 << 14
