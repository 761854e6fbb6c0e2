"""`prcurve report FILE` in a terminal against a pipe (issue 26, item 6; session 36).

Runs, alternating, each in a fresh process, best of ``--repeat`` (CPU: user + sys of the
process, ``os.wait4``):

- ``terminal``: standard output and standard error on a pseudo-terminal (python's ``pty``;
  ``COLUMNS`` fixed), its bytes read and kept;
- ``pipe``: both on pipes (what the other benchmarks see);
- ``numpy``: ``python -c "import numpy"``, the floor of any report;

for this interpreter and ``--before PYTHON`` (main's, its own checkout installed), and
checks that the two terminal outputs are the same bytes (the progress line on standard
error carries a speed and a time: compared with its digits masked). The machine's load
(``os.getloadavg``) is printed before and after.

Run: ``python benchmarks/bench_terminal_report.py FILE --before /work/main/.venv/bin/python
[--repeat 5]``.
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import select
import subprocess
import sys

ENV = {**os.environ, "COLUMNS": "100", "LINES": "40", "TERM": "xterm-256color"}


def terminal(command: list[str]) -> tuple[float, bytes, bytes]:
    """CPU seconds and the bytes a process writes to its standard output and standard
    error, each a pseudo-terminal of its own."""
    ends = [pty.openpty(), pty.openpty()]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=ends[0][1],
                               stderr=ends[1][1], env=ENV, close_fds=True)
    for _, slave in ends:
        os.close(slave)
    chunks: dict[int, list[bytes]] = {master: [] for master, _ in ends}
    open_ = [master for master, _ in ends]
    while open_:
        ready, _, _ = select.select(open_, [], [], 60)
        if not ready:
            break
        for master in ready:
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # EIO: the other end closed
                chunk = b""
            if chunk:
                chunks[master].append(chunk)
            else:
                open_.remove(master)
    _, status, usage = os.wait4(process.pid, 0)
    out, err = (b"".join(chunks[master]) for master, _ in ends)
    for master, _ in ends:
        os.close(master)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {command}\n{err.decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime, out, err


def piped_cpu(command: list[str]) -> float:
    """CPU seconds of a process whose both streams are pipes."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, env=ENV, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def masked(progress: bytes) -> bytes:
    """Standard error's last frame of the progress display (rich redraws it at its own
    pace), its spinner, speed and elapsed time masked, and the lines after it."""
    last = progress.split(b"\r\x1b[2K")[-1]
    last = re.sub("[\u2800-\u28ff]", "#", last.decode()).encode()  # the spinner's frame
    last = re.sub(rb"[0-9,]+ rows/s", b"# rows/s", last)
    return re.sub(rb"\d+:\d\d:\d\d", b"#:##:##", last)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--before", required=True, help="main's interpreter")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    pythons = {"before": args.before, "after": sys.executable}
    times: dict[str, list[float]] = {}
    outputs: dict[str, set[bytes]] = {"before": set(), "after": set()}
    progress: dict[str, set[bytes]] = {"before": set(), "after": set()}
    print("load before", os.getloadavg())
    for _ in range(args.repeat):
        for name, python in pythons.items():
            report = [python, "-m", "prcurve", "report", args.file]
            cpu, out, err = terminal(report)
            times.setdefault(f"{name} terminal", []).append(cpu)
            outputs[name].add(out)
            progress[name].add(masked(err))
            times.setdefault(f"{name} pipe", []).append(piped_cpu(report))
            times.setdefault(f"{name} import numpy", []).append(
                piped_cpu([python, "-c", "import numpy"]))
    for key, values in times.items():
        print(f"{key:28s} CPU best {min(values) * 1000:7.1f} ms  median "
              f"{sorted(values)[len(values) // 2] * 1000:7.1f} ms")
    for name in pythons:
        extra = min(times[f"{name} terminal"]) - min(times[f"{name} pipe"])
        print(f"{name}: terminal - pipe = {extra * 1000:.1f} ms")
    for what, seen in (("standard output", outputs), ("progress, last frame", progress)):
        same = seen["before"] == seen["after"] and len(seen["after"]) == 1
        print(f"terminal bytes, {what}:", "identical" if same else
              f"DIFFERENT ({len(seen['before'])} / {len(seen['after'])} distinct)")
    print("load after", os.getloadavg())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
