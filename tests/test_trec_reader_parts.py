"""The TREC file reader's pieces (ranking.trec_reader). The plain-file check reads a
file through memory maps of one chunk at a time and decides as it does over bytes
read into a buffer (a pipe, stdin), on every kind of content and across chunk
edges; pyarrow's batches, parsed ahead in another thread, come in order, with the
reader's error in its place, and leaving early stops that thread."""

from __future__ import annotations

import io
import mmap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prcurve.ranking.trec_reader as trec_reader

PLAIN = b"301 Q0 d1 1 2.5 run\n301 Q0 d2 2 1.5 run\n302 Q0 d1 1 0.5 run\n"
PIECES = [b"301", b"Q0", b"d17", b"2.5", b"run", b" ", b"\t", b"\n", b"\r\n", b"\r", b"  ",
          b"\x0b", b"\x0c", b"\x00", b"\x01", b"#", b"\xc3\xa9"]


def _decision(sniffer: trec_reader._Sniffer) -> tuple[object, ...]:
    return (sniffer.plain, sniffer.delimiter(), sniffer.rows() if sniffer.plain else None,
            sniffer.carriage)


@settings(max_examples=120, deadline=None)
@given(lines=st.lists(st.lists(st.sampled_from(PIECES), max_size=12), max_size=2500),
       plain_copies=st.integers(0, 400))
def test_windows_decide_as_the_buffer_reader(
    tmp_path_factory: pytest.TempPathFactory, lines: list[list[bytes]], plain_copies: int
) -> None:
    data = PLAIN * plain_copies + b"".join(b"".join(line) for line in lines)
    path = tmp_path_factory.mktemp("sniff") / "run"
    path.write_bytes(data)
    chunk = mmap.ALLOCATIONGRANULARITY  # many chunks: every edge case at a chunk boundary
    original = trec_reader._CHUNK
    trec_reader._CHUNK = chunk
    try:
        with open(path, "rb") as handle:
            mapped = trec_reader._stream_sniff(handle)
        buffered = trec_reader._stream_sniff(io.BufferedReader(io.BytesIO(data)))  # no file
        whole = trec_reader._sniff(data)
    finally:
        trec_reader._CHUNK = original
    assert _decision(mapped) == _decision(buffered) == _decision(whole)


def test_a_file_of_several_chunks_is_read_through_maps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The maps are used (not the buffer) for a regular file; an empty file and a file
    # that cannot be mapped (a chunk size off the map granularity) are read instead.
    opened: list[int] = []
    real = mmap.mmap

    def spy(*args: object, **kwargs: object) -> mmap.mmap:
        opened.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(trec_reader.mmap, "mmap", spy)
    monkeypatch.setattr(trec_reader, "_CHUNK", mmap.ALLOCATIONGRANULARITY)
    path = tmp_path / "run"
    path.write_bytes(PLAIN * 500)
    with open(path, "rb") as handle:
        sniffer = trec_reader._stream_sniff(handle)
    assert sniffer.delimiter() == " "
    assert sniffer.rows() == 1500
    assert len(opened) == -(-len(PLAIN * 500) // mmap.ALLOCATIONGRANULARITY)
    opened.clear()
    monkeypatch.setattr(trec_reader, "_CHUNK", mmap.ALLOCATIONGRANULARITY + 1)
    with open(path, "rb") as handle:
        assert trec_reader._stream_sniff(handle).rows() == 1500
    assert opened == []
    (tmp_path / "empty").write_bytes(b"")
    with open(tmp_path / "empty", "rb") as handle:
        assert trec_reader._stream_sniff(handle).delimiter() is None
    assert opened == []


# -- pyarrow's batches parsed ahead in another thread (trec_reader._ahead) -------------


class _Batches:
    """A reader of ``n`` batches that fails after ``fail_after`` of them, if given."""

    def __init__(self, n: int, fail_after: int | None = None) -> None:
        self.n, self.fail_after, self.pulled = n, fail_after, 0

    def __iter__(self) -> _Batches:
        return self

    def __next__(self) -> int:
        if self.fail_after is not None and self.pulled == self.fail_after:
            raise ValueError(f"bad batch {self.pulled}")
        if self.pulled == self.n:
            raise StopIteration
        self.pulled += 1
        return self.pulled - 1


@pytest.mark.parametrize("n", [0, 1, 3, 50])
def test_batches_ahead_come_in_order(n: int) -> None:
    assert list(trec_reader._ahead(_Batches(n))) == list(range(n))


def test_a_reader_error_is_raised_after_the_batches_before_it() -> None:
    taken: list[int] = []
    with pytest.raises(ValueError, match="bad batch 7"):
        taken.extend(trec_reader._ahead(_Batches(50, fail_after=7)))
    assert taken == list(range(7))


def test_leaving_early_stops_the_reading_thread() -> None:
    import threading

    reader = _Batches(10_000)
    batches = trec_reader._ahead(reader)
    assert next(batches) == 0
    batches.close()  # as when the caller returns from inside its loop
    assert not any(t.name == "prcurve-trec-reader" for t in threading.enumerate())
    assert reader.pulled <= 2 + trec_reader._AHEAD  # it stopped, never read them all
