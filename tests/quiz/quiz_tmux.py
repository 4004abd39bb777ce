#!/usr/bin/env python3
"""The quiz in a real terminal (tmux) at 40 and 80 columns, in English and French: every line fits
the width (tmux wraps a longer line, and `capture-pane -J` joins it back, so a joined line longer
than the width is one the terminal had to break), the quiz pauses after each answer's feedback until
Enter, q at the prompt ends with the summary, and t there runs "try it yourself" for every question
that has one.

Usage: quiz_tmux.py PATH/TO/mixed-precision-quiz   (needs tmux; exit 0 when every check passes)
"""
import concurrent.futures
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


def new_session(name, width, cmd):
    """A detached session running cmd in a width x 24 pane, in the C.UTF-8 locale; False (said) on failure."""
    r = tmux("new-session", "-d", "-s", name, "-x", str(width), "-y", "24", "-e", "LANG=C.UTF-8", "-e", "LC_ALL=C.UTF-8",
             cmd)
    if r.returncode != 0:
        print(f"tmux new-session {name} failed (exit {r.returncode}): {r.stderr.strip()}")
    return r.returncode == 0


def show_screen(session):
    """Prints the session's screen, to say what was there when a check failed."""
    print(f"--- the screen of {session} ---\n{screen(session).rstrip()}\n--- end of {session} ---")


# A session that lives for the whole test. tmux's server exits when its last session is killed, and
# a new-session sent while it is still exiting can be lost: with this one alive, the server stays up
# between the sessions below (a CI run on a loaded machine once saw no quiz prompt in 20 s).
new_session("keeper", 80, "sleep 600")


def wait_for(session, text, timeout=60, count=1):
    """The screen once `text` appears on it `count` times (spaces normalised), or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = screen(session)
        if " ".join(s.replace("\u00a0", " ").split()).count(text) >= count:
            return s
        time.sleep(0.1)
    return None


TEXT = {
    "en": {"prompt": "Your answer (A-D, q to quit):", "pause": "Press Enter for the next question, or t to try it yourself (q quits).",
           "q2": "Question 2 of 8", "summary": "Score: 1/2", "demo": "Live demo"},
    "fr": {"prompt": "Votre réponse (A-D, q pour quitter) :",
           "pause": "Appuyez sur Entrée pour passer à la question suivante, ou sur t pour essayer vous-même "
                    "(q pour quitter).",
           "q2": "Question 2 sur 8", "summary": "Score : 1/2", "demo": "Démo en direct"},
}

for lang in ("en", "fr"):
    for width in (40, 80):
        t = TEXT[lang]
        name = f"{lang}{width}"
        where = f"{lang}, {width} columns"
        # A shell that keeps the pane open after the quiz ends, so its last screen can be read.
        cmd = f"'{QUIZ}' --lang {lang}; echo quiz-exit=$?; sleep 30"
        s = wait_for(name, t["prompt"]) if new_session(name, width, cmd) else None
        check(s is not None, f"{where}: the first prompt appears")
        if s is None:
            show_screen(name)
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

# "t" after each question's demo, in a terminal: the example values of its invitation, then bad
# input, then an empty line back to the pause. Each question once, in turn in each language and
# width; the first one in all four.
# (values typed, then text the result must hold in English and in French: French writes numbers
# with a decimal comma and groups digits with a narrow no-break space)
TRY = {1: ("1 1e-4", "2^-11", "2^-11"), 2: ("1e-8 1024", "1.025e-05", "1,025e-05"),
       3: ("0.1", "0.0999755859375", "0,0999755859375"), 4: ("4096 1", "2048", "2048"),
       6: ("65536 4 3", "32768", "32\u202f768"), 7: ("1e-9 1", "1e-09", "1e-09"), 8: ("12", "NaN", "NaN"),
       # the hard level (--question 9 to 16)
       9: ("0.1", "0.099975586", "0,099975586"), 10: ("1e-5 448", "0.0048828125", "0,0048828125"),
       11: ("1 16", "7168", "7168"), 12: ("0.5 65536 1", "32768.457", "32\u202f768,457"),
       13: ("1 0.0001 10000", "2.0001657", "2,0001657"), 14: ("10000 0.01", "100.09766", "100,09766"),
       15: ("1.5 100", "33095.68", "33\u202f095,68"), 16: ("1000", "1000.0000305175781", "1000,0000305175781")}
BAD = {"en": "Not understood: 'zzz'.", "fr": "Pas compris : 'zzz'."}
BACK = {"en": "an empty line goes back to the quiz", "fr": "une ligne vide revient au quiz"}
runs = [(1, "en", 40), (1, "en", 80), (1, "fr", 40), (1, "fr", 80)]
for i, n in enumerate([2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]):
    runs.append((n, ("en", "fr")[i % 2], (40, 80)[(i // 2) % 2]))
def try_run(n, lang, width):
    name = f"try{n}{lang}{width}"
    where = f"try it, question {n}, {lang}, {width} columns"
    values, expect_en, expect_fr = TRY[n]
    expect = expect_en if lang == "en" else expect_fr
    cmd = f"'{QUIZ}' --lang {lang} --question {n}; echo quiz-exit=$?; sleep 30"
    ok = new_session(name, width, cmd) and wait_for(name, TEXT[lang]["prompt"]) is not None
    tmux("send-keys", "-t", name, "a", "Enter")
    ok = ok and wait_for(name, "(q ") is not None and wait_for(name, "t ") is not None
    time.sleep(0.2)
    tmux("send-keys", "-t", name, "t", "Enter")
    ok = ok and wait_for(name, BACK[lang]) is not None
    tmux("send-keys", "-t", name, values, "Enter")
    s = wait_for(name, BACK[lang], count=2)
    check(ok and s is not None and expect in s, f"{where}: '{values}' gives a result with {expect}")
    tmux("send-keys", "-t", name, "zzz", "Enter")
    check(wait_for(name, BACK[lang], count=3) is not None and BAD[lang] in " ".join(screen(name).split()),
          f"{where}: bad input re-prompts with the accepted form")
    tmux("send-keys", "-t", name, "Enter")
    time.sleep(0.3)
    tmux("send-keys", "-t", name, "Enter")
    s = wait_for(name, "quiz-exit=0")
    check(s is not None, f"{where}: an empty line, then Enter, ends the one-question quiz")
    if s is not None:
        wide = [line for line in s.split("\n") if len(line.rstrip()) > width]
        check(not wide, f"{where}: no line wider than the terminal: {wide[:2]}")
    tmux("kill-session", "-t", name)


# The sessions are independent (one tmux session each): four at a time, most of their time is
# spent waiting for the quiz to draw.
with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
    list(pool.map(lambda r: try_run(*r), runs))

tmux("kill-server")
if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all tmux checks passed (en and fr, 40 and 80 columns)")
