"""Memory of reading TREC files (issue 26, item 3): the exact reader's peak and what
it keeps, and `prcurve trec` of a small run with large qrels without pyarrow."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np

from prcurve.ranking import read_qrels
from prcurve.ranking.hashing import numpy_only
from prcurve.ranking.trec_format import exact_columns


def _qrels_text(rows: int) -> bytes:
    return "".join(f"{300 + k // 1000} 0 d{k * 7919 % 10**8} {k % 3}\n"
                   for k in range(rows)).encode()


def test_the_exact_readers_peak_is_a_few_times_the_file() -> None:
    # 6.8 MB of qrels (4·10^5 lines): chunks of 2 MiB and each column's pieces dropped
    # once joined keep the peak (numpy's allocations, traced) at about 5.6x the file's
    # bytes; chunks of 16 MiB with every piece held to the end took 10.4x.
    text = _qrels_text(400_000)
    buffer = np.frombuffer(text, dtype=np.uint8)
    with numpy_only():
        tracemalloc.start()
        try:
            columns = exact_columns(buffer, "qrels", "qrels")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 7 * len(text)
    assert columns.line is None  # lines 1..n: no array of line numbers kept
    assert columns.values.tolist() == [k % 3 for k in range(400_000)]


def test_line_numbers_are_kept_where_lines_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_bytes(b"q1 0 a 1\n# comment\nq1 0 b 0\n\nq2 0 c 2\n")
    assert read_qrels(tmp_path / "qrels").line.tolist() == [1, 3, 5]
    (tmp_path / "plain").write_bytes(b"q1 0 a 1\nq1 0 b 0\r\nq2 0 c 2")
    assert read_qrels(tmp_path / "plain").line.tolist() == [1, 2, 3]


def test_a_small_run_with_large_qrels_reads_them_without_pyarrow(tmp_path: Path) -> None:
    # pyarrow's import alone is about 40 MiB; qrels above SMALL_FILE_BYTES with a small
    # run went to pyarrow's reader (issue 26: 10^6 judgments, 237 MiB against 174).
    (tmp_path / "qrels").write_bytes(_qrels_text(300_000))  # 5.1 MB
    (tmp_path / "run").write_text("".join(f"{300 + k} Q0 d{j * 7919} {j} {j % 13} r\n"
                                          for k in range(3) for j in range(100)))
    code = ("import sys\nfrom prcurve.cli import main\n"
            f"main(['trec', {str(tmp_path / 'qrels')!r}, {str(tmp_path / 'run')!r}])\n"
            "print('pyarrow' in sys.modules, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stderr.split()[-1] == "False"
    assert done.stdout.startswith("runid")
