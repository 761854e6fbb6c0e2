"""prcurve.detection.json_parts: a JSON array cut into parts parses to the same list.

The reference is the standard library's ``json``: every part, written as an array of its
own, parses to a run of the whole array's elements, and the runs joined are the array.
A readable character-by-character scanner is the oracle of where the cuts may fall.
"""

from __future__ import annotations

import gc
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from prcurve.detection import coco_json
from prcurve.detection.json_parts import array_parts
from prcurve.errors import InvalidInputError

# Strings full of the bytes the scan must not take for structure: quotes, backslashes,
# brackets, braces, commas, and text beyond ASCII.
TRICKY = st.text(alphabet=st.sampled_from(list('"\\[]{},: ab\u00e9\u4e2d\U0001f600\n')),
                 max_size=8)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY, inner, max_size=4),
    max_leaves=12)


def commas_at_depth_one(raw: bytes) -> list[int]:
    """The oracle: the top-level array's separating commas, one byte at a time."""
    found, depth, in_string, escaped = [], 0, False, False
    for i, byte in enumerate(raw):
        char = chr(byte)
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 1:
            found.append(i)
    return found


def joined(raw: bytes, parts: list[tuple[int, int]]) -> list[Any]:
    out: list[Any] = []
    for start, stop in parts:
        out.extend(json.loads(b"[" + raw[start:stop] + b"]"))
    return out


@given(st.lists(VALUES, min_size=2, max_size=30), st.integers(1, 200), st.integers(1, 64),
       st.sampled_from([", ", ",", " ,\n "]), st.booleans())
def test_parts_join_to_the_array(values: list[Any], part_bytes: int, window: int,
                                 separator: str, padded: bool) -> None:
    text = "[" + separator.join(json.dumps(v, ensure_ascii=False) for v in values) + "]"
    raw = ((" \n" if padded else "") + text + ("\n " if padded else "")).encode()
    parts = array_parts(raw, part_bytes=part_bytes, window=window)
    # Cuts fall only before an element that is an object or an array (a record).
    if parts is None:  # no record after the first, or none far enough along
        assert part_bytes > 1 or not any(isinstance(v, (list, dict)) for v in values[1:])
        return
    assert len(parts) > 1
    assert joined(raw, parts) == json.loads(raw)
    # Every cut is one of the oracle's commas, and the parts are in order and adjacent.
    commas = commas_at_depth_one(raw)
    for (_, stop), (start, _) in itertools.pairwise(parts):
        assert stop in commas
        assert start == stop + 1
        assert raw[start:].lstrip()[:1] in (b"{", b"[")


@given(st.text(alphabet=st.sampled_from(list('"\\[]{},: a1')), max_size=40),
       st.integers(1, 16))
def test_anything_else_is_none_or_the_same_list(text: str, window: int) -> None:
    # On arbitrary bytes the scan either declines or cuts where the oracle would; then
    # the parts parse to the whole document's elements exactly when the whole parses.
    raw = text.encode()
    parts = array_parts(raw, part_bytes=1, window=window)
    if parts is None:
        return
    commas = commas_at_depth_one(raw)
    for (_, stop), (start, _) in itertools.pairwise(parts):
        assert stop in commas
        assert start == stop + 1
    try:
        whole = json.loads(raw)
    except ValueError:
        with pytest.raises(json.JSONDecodeError):  # not JSON whole: not JSON in parts
            joined(raw, parts)
        return
    assert joined(raw, parts) == whole


@pytest.mark.parametrize("raw", [b"", b"{}", b'{"a": [1, 2]}', b"[1]", b"[]", b"[1, 2",
                                 b"[1, 2]]", b"[1, 2] [3]", b'[1, "2]', b"1, 2", b"[1, 2]x",
                                 b"[,{}]", b"[ \n, [1]]"])
def test_what_cannot_be_cut_is_parsed_whole(raw: bytes) -> None:
    assert array_parts(raw, part_bytes=1) is None


def test_a_large_results_file_is_read_in_parts(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    records = [{"image_id": i, "category_id": 1, "score": i / 7,
                "keypoints": [i + 0.5, 2.25, 1.0] * 17, "note": 'a "quoted", [bracket]'}
               for i in range(2000)]
    path = tmp_path / "results.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(records).encode())
    calls: list[int] = []
    real = orjson.loads

    def counting(data: Any) -> Any:
        calls.append(len(data))
        return real(data)

    monkeypatch.setattr(coco_json, "PART_BYTES", 1 << 12)
    monkeypatch.setattr(orjson, "loads", counting)
    assert coco_json.read_json(path, "detections") == records
    assert len(calls) > 10
    assert max(calls) < 1 << 13


def test_a_gzip_results_file_is_read_in_parts(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # The sibling of the plain file above: the parts are cut from the decompressed bytes.
    import gzip

    records = [{"image_id": i, "category_id": 2, "score": 1 / (i + 3), "bbox": [i, 1, 2, 3]}
               for i in range(300)]
    path = tmp_path / "results.json.gz"
    path.write_bytes(gzip.compress(json.dumps(records).encode()))
    sizes: list[int] = []
    real = orjson.loads

    def counting(data: Any) -> Any:
        sizes.append(len(data))
        return real(data)

    monkeypatch.setattr(coco_json, "PART_BYTES", 1 << 10)
    monkeypatch.setattr(orjson, "loads", counting)
    assert coco_json.read_json(path, "detections") == records
    assert len(sizes) > 5


def test_a_file_refused_whole_is_refused_in_parts(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # "[ ," opens no element: the first part alone would read as "[]".
    path = tmp_path / "results.json"
    path.write_bytes(b'[ ,{"a": 1}, {"a": 2}, {"a": 3}]')
    monkeypatch.setattr(coco_json, "PART_BYTES", 1)
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        coco_json.read_json(path, "detections")


@pytest.mark.parametrize("text", ['[{"a": 1}, {"a": 2}]', '[{"a": 1}, {"a": ]'])
@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_while_parsing_and_left_as_it_was(
        text: str, enabled: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "results.json"
    path.write_text(text)
    seen: list[bool] = []
    real = json.loads

    def watching(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(json, "loads", watching)
    monkeypatch.setitem(sys.modules, "orjson", None)  # the json path
    (gc.enable if enabled else gc.disable)()
    try:
        if "{\"a\": ]" in text:
            with pytest.raises(InvalidInputError, match="detections"):
                coco_json.read_json(path, "detections")
        else:
            assert len(coco_json.read_json(path, "detections")) == 2
        assert seen == [False]
        assert gc.isenabled() is enabled
    finally:
        gc.enable()


@pytest.mark.parametrize("enabled", [True, False])
def test_orjson_parts_and_json_lines_parse_with_the_collector_paused(
        enabled: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The siblings of the json path above: orjson, a part at a time, and the JSON Lines
    # rows that prcurve.io.jsonl_python parses in Python.
    from prcurve.io import jsonl_python

    seen: list[bool] = []

    def watching(real: Any) -> Any:
        def parse(*args: Any, **kwargs: Any) -> Any:
            seen.append(gc.isenabled())
            return real(*args, **kwargs)
        return parse

    records = [{"image_id": i, "category_id": 1, "score": 0.5} for i in range(20)]
    results = tmp_path / "results.json"
    results.write_text(json.dumps(records))
    lines = tmp_path / "scores.jsonl"
    lines.write_text('{"label": 1, "score": 0.5}\n{"label": 0, "score": 0.25}\n')
    monkeypatch.setattr(coco_json, "PART_BYTES", 1 << 6)
    monkeypatch.setattr(orjson, "loads", watching(orjson.loads))
    monkeypatch.setattr(json, "loads", watching(json.loads))
    (gc.enable if enabled else gc.disable)()
    try:
        assert coco_json.read_json(results, "detections") == records
        parts = len(seen)
        columns = jsonl_python.read_jsonl_python(lines, None)
        assert columns["score"].tolist() == [0.5, 0.25]
        assert parts > 2
        assert seen == [False] * (parts + 2)
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
