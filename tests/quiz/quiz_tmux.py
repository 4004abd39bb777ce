#!/usr/bin/env python3
"""The quiz in a real terminal (tmux) at 40 and 80 columns, in English and French: every line fits
the width (tmux wraps a longer line, and `capture-pane -J` joins it back, so a joined line longer
than the width is one the terminal had to break), the quiz pauses after each answer's feedback until
Enter, and q at the prompt ends with the summary.

Usage: quiz_tmux.py PATH/TO/mixed-precision-quiz   (needs tmux; exit 0 when every check passes)
"""
import os
import shutil
import subprocess
import sys
import time

QUIZ = os.path.abspath(sys.argv[1])
TMUX = shutil.which("tmux")
SOCKET = f"libfloat-quiz-{os.getpid()}"  # a private tmux server, killed at the end
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def tmux(*args):
    return subprocess.run([TMUX, "-L", SOCKET, *args], capture_output=True, text=True, timeout=30)


def screen(session):
    """The whole session so far (history included), wrapped lines joined."""
    return tmux("capture-pane", "-p", "-J", "-S", "-", "-t", session).stdout


def wait_for(session, text, timeout=20, count=1):
    """The screen once `text` appears on it `count` times (spaces normalised), or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = screen(session)
        if " ".join(s.replace("\u00a0", " ").split()).count(text) >= count:
            return s
        time.sleep(0.1)
    return None


TEXT = {
    "en": {"prompt": "Your answer (A-D, q to quit):", "pause": "Press Enter for the next question (q quits).",
           "q2": "Question 2 of 8", "summary": "Score: 1/2", "demo": "Live demo"},
    "fr": {"prompt": "Votre réponse (A-D, q pour quitter) :",
           "pause": "Appuyez sur Entrée pour passer à la question suivante (q pour quitter).",
           "q2": "Question 2 sur 8", "summary": "Score : 1/2", "demo": "Démo en direct"},
}

for lang in ("en", "fr"):
    for width in (40, 80):
        t = TEXT[lang]
        name = f"{lang}{width}"
        where = f"{lang}, {width} columns"
        env = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        # A shell that keeps the pane open after the quiz ends, so its last screen can be read.
        cmd = f"'{QUIZ}' --lang {lang}; echo quiz-exit=$?; sleep 30"
        tmux("new-session", "-d", "-s", name, "-x", str(width), "-y", "24",
             *[a for k, v in env.items() for a in ("-e", f"{k}={v}")], cmd)
        s = wait_for(name, t["prompt"])
        check(s is not None, f"{where}: the first prompt appears")
        if s is None:
            continue
        tmux("send-keys", "-t", name, "b", "Enter")
        s = wait_for(name, t["pause"])
        check(s is not None and t["demo"] in s, f"{where}: after the answer, the feedback and the demo, then the pause")
        time.sleep(0.3)
        check(t["q2"] not in screen(name), f"{where}: the next question waits for Enter")
        tmux("send-keys", "-t", name, "Enter")
        check(wait_for(name, t["q2"]) is not None, f"{where}: Enter shows question 2")
        check(wait_for(name, t["prompt"], count=2) is not None, f"{where}: the second prompt")
        tmux("send-keys", "-t", name, "B", "Enter")
        check(wait_for(name, t["pause"], count=2) is not None, f"{where}: the second pause")
        tmux("send-keys", "-t", name, "q", "Enter")
        s = wait_for(name, "quiz-exit=0")
        check(s is not None and t["summary"] in " ".join(s.replace("\u00a0", " ").split()),
              f"{where}: q at the pause ends with the summary so far and exit 0")
        if s is not None:
            wide = [line for line in s.split("\n") if len(line.rstrip()) > width]
            check(not wide, f"{where}: no line wider than the terminal: {wide[:2]}")
        tmux("kill-session", "-t", name)

tmux("kill-server")
if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all tmux checks passed (en and fr, 40 and 80 columns)")
