"""Issue 14 item 5: invalid UTF-8 in arguments or on stdin is a one-line error (exit 2), and a
memory's control characters are shown escaped on a terminal, never obeyed."""

import os
import pty
import subprocess
import sys

import pytest

MEMORY_LSP = [sys.executable, "-m", "memory_lsp"]


def run(args, stdin: bytes | None = None):
    return subprocess.run(MEMORY_LSP + args, capture_output=True, input=stdin, timeout=120)


@pytest.mark.parametrize("command", [["teach", b"bad \xff byte", "--type", "fact"], ["memories", "--file", b"\xc3("]])
def test_invalid_utf8_argument_is_one_line_exit_2(tmp_path, command):
    args = [os.fsdecode(a) if isinstance(a, bytes) else a for a in command] + ["-w", str(tmp_path)]
    done = run(args)
    assert done.returncode == 2
    err = done.stderr.decode()
    assert err.count("\n") == 1 and "not valid UTF-8" in err and "Traceback" not in err
    assert not (tmp_path / ".memory" / "events.jsonl").exists()


def test_invalid_utf8_on_stdin_is_one_line_exit_2(tmp_path):
    done = run(["capture", "-w", str(tmp_path)], stdin=b"You must always \xfe\xff use uv.\n")
    assert done.returncode == 2
    err = done.stderr.decode()
    assert err == "memory-lsp: stdin is not valid UTF-8 (byte 0xfe at offset 16)\n"


def test_control_characters_are_escaped_on_a_terminal(tmp_path):
    text = "red \x1b[31mALERT\x1b[0m\rSYSTEM\x07 rtl \u202eevil\u2028next"
    assert run(["teach", "-w", str(tmp_path), text, "--type", "fact"]).returncode == 0
    leader, follower = pty.openpty()  # a real terminal on stdout, as a user has
    proc = subprocess.Popen(MEMORY_LSP + ["memories", "-w", str(tmp_path)], stdout=follower, stderr=subprocess.PIPE)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    assert proc.wait(timeout=120) == 0
    os.close(leader)
    shown = out.decode()
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown and "\u2028" not in shown
    assert "red \\x1b[31mALERT\\x1b[0m\\x0dSYSTEM\\x07" in shown


def test_a_reader_that_leaves_the_pipe_early_gets_no_traceback(tmp_path):
    from memory_lsp.memory.book import MemoryBook

    book = MemoryBook(tmp_path)
    for i in range(300):  # more output than a pipe holds: the writer meets the closed pipe
        book.teach(f"fact {i}: the retry loop backs off exponentially " + "and waits " * 30, "fact")
    shell = f"{sys.executable} -m memory_lsp memories --workspace {tmp_path} --json | head -c 1"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True)
    assert done.returncode == 141, done.stderr  # 128 + SIGPIPE, as a pipe's writer ends
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
