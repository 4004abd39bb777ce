#!/usr/bin/env python3
"""mixed-precision-quiz run as a person runs it: scripted answers in both languages, invalid input,
end of input, q, --preview/--reveal/--json structure, usage errors, one run under a pseudo-terminal,
the 80-column limit and the 2-second budget of a full non-interactive run.

Usage: quiz_cli.py <path to mixed-precision-quiz>
"""
import json
import os
import pty
import re
import select
import subprocess
import sys
import time

QUIZ = sys.argv[1]
ANSWERS = "ABCDABCD"  # the original quiz's answer key
WRONG = "BCDABCDA"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args, stdin="", env_extra=None, lang_env=None):
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG", "NO_COLOR")}
    env.update(env_extra or {})
    p = subprocess.run([QUIZ] + args, input=stdin.encode(), capture_output=True, env=env, timeout=60)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def flat(s):
    """Whitespace-normalised text (wrapping and no-break spaces do not matter)."""
    return " ".join(s.replace("\u00a0", " ").split())


def wide_lines(text):
    return [l for l in text.split("\n") if len(l) > 79]


SCORE = {"en": "Score: {}/{}", "fr": "Score : {}/{}"}

# ---- reference data from --reveal --json --------------------------------------------------------
ref = {}
for lang in ("en", "fr"):
    rc, out, err = run(["--reveal", "--json", "--no-demo", "--lang", lang])
    check(rc == 0, f"{lang}: --reveal --json exits 0 ({err})")
    ref[lang] = json.loads(out)

# ---- both languages: same structure -------------------------------------------------------------
for lang in ("en", "fr"):
    r = ref[lang]
    check(r["lang"] == lang, f"{lang}: lang field")
    check(len(r["questions"]) == 8, f"{lang}: 8 questions")
    check("".join(q["answer"] for q in r["questions"]) == ANSWERS, f"{lang}: answers {ANSWERS}")
    for q in r["questions"]:
        check(len(q["options"]) == 4 and all(q["options"]), f"{lang} Q{q['number']}: 4 options")
        check(sorted(q["why_not"]) == sorted(set("ABCD") - {q["answer"]}), f"{lang} Q{q['number']}: why_not for each wrong option")
        check(q["guide"].startswith(f"docs/guide/{lang}.md#"), f"{lang} Q{q['number']}: guide link")
        check("demo" not in q, f"{lang} Q{q['number']}: --no-demo leaves the demo out")
check([q["guide"].split("#")[1] for q in ref["en"]["questions"]] == [q["guide"].split("#")[1] for q in ref["fr"]["questions"]],
      "en and fr link the same guide sections")
check(ref["en"]["level"] == "Medium" and ref["fr"]["level"] == "Niveau moyen", "levels")

# ---- all right, all wrong -------------------------------------------------------------------------
for lang in ("en", "fr"):
    rc, out, err = run(["--answers", ANSWERS, "--no-demo", "--lang", lang])
    check(rc == 0, f"{lang}: all right exits 0")
    check(SCORE[lang].format(8, 8) in out.replace("\u00a0", " "), f"{lang}: all right gives 8/8")
    check(("Question 8 of 8" if lang == "en" else "Question 8 sur 8") in out.replace("\u00a0", " "), f"{lang}: Question N of 8")

    rc, out, err = run(["--answers", WRONG, "--no-demo", "--lang", lang])
    check(rc == 0, f"{lang}: all wrong exits 0")
    text = flat(out)
    check(SCORE[lang].format(0, 8) in text, f"{lang}: all wrong gives 0/8")
    for q in ref[lang]["questions"]:
        check(flat(q["explanation"]) in text, f"{lang} Q{q['number']}: explanation shown")
        for letter, why in q["why_not"].items():
            check(flat(f"{letter}) {why}") in text, f"{lang} Q{q['number']}: why not {letter} shown")
        check(q["guide"] in text, f"{lang} Q{q['number']}: guide section in the summary")
    check(not wide_lines(out), f"{lang}: all-wrong run fits 80 columns: {wide_lines(out)[:2]}")

# ---- answers in any accepted spelling; invalid entries re-prompt and are not counted -------------
rc, out, err = run(["--no-demo", "--question", "1"], stdin="x\nE\n5\n\n1\n")
check(rc == 0, "invalid entries: exit 0")
check(out.count("Your answer (A-D, q to quit):") == 5, "invalid entries: the prompt is asked again each time")
check(out.count("Please answer A, B, C or D (or 1 to 4); q quits.") == 4, "invalid entries: 4 messages")
check(SCORE["en"].format(1, 1) in out, "invalid entries are not counted; '1' answers A")
rc, out, err = run(["--no-demo"], stdin="a\nB\n3\nd\nA\n2\nc\n4\n")
check(SCORE["en"].format(8, 8) in out, "lower case and digits are answers")

# ---- end of input and q stop with the summary so far ---------------------------------------------
rc, out, err = run(["--no-demo"], stdin="A\nC\n")
check(rc == 0, "end of input: exit 0")
check(SCORE["en"].format(1, 2) in out and "(stopped after 2 of 8 questions)" in out, "end of input mid-quiz: summary so far")
check("Question 2, Loss scaling: docs/guide/en.md#fp16-range-and-loss-scaling" in flat(out), "end of input: the missed question's guide")
rc, out, err = run(["--no-demo", "--lang", "fr"], stdin="A\nq\nB\n")
check(SCORE["fr"].format(1, 1) in out.replace("\u00a0", " ") and "Question 3 sur 8" not in out.replace("\u00a0", " "),
      "q quits at once with the summary")
rc, out, err = run(["--no-demo"], stdin="")
check(rc == 0 and "No question answered." in out, "empty input: summary with nothing answered")

# Stopped before the end with nothing missed: never "Nothing missed." (that reads as the whole quiz).
rc, out, err = run(["--no-demo"], stdin="A\nq\n")
check("(stopped after 1 of 8 questions)" in out and "No mistake in the answers given." in out
      and "Nothing missed." not in out, "stopped after 1 right answer: not 'Nothing missed'")
rc, out, err = run(["--no-demo", "--lang", "fr"], stdin="A\nq\n")
plain = out.replace("\u00a0", " ")
check("(arrêt après 1 des 8 questions)" in plain and "Aucune erreur dans les réponses données." in plain
      and "Aucune question manquée." not in plain, "fr: stopped after 1 right answer")
rc, out, err = run(["--no-demo", "--lang", "fr"], stdin="")
check("Vous n'avez répondu à aucune question." in out and "arrêt après" not in out, "fr: nothing answered, no 'after 0 of 8'")
rc, out, err = run(["--no-demo", "--question", "3"], stdin="")
check("stopped after 0" not in out and "of 1 questions" not in out, "one question asked, none answered: no plural slip")

# ---- input that is not a terminal cannot loop for ever; output that cannot be written ------------
rc, out, err = run(["--no-demo"], stdin="x\n" * 1000)
check(rc == 2 and "20 invalid answers in a row" in err and out.count("Please answer") == 20,
      f"yes x | quiz: stops after 20 invalid answers with exit 2 (got {rc}, {out.count('Please answer')} messages)")
rc, out, err = run(["--no-demo"], stdin=("x\n" * 19 + "A\n") * 3)
check(rc == 0 and SCORE["en"].format(1, 3) in out, "19 invalid answers then a valid one: the run goes on")
rc, out, err = run(["--no-demo", "--lang", "fr"], stdin="x\n" * 25)
check(rc == 2 and "20 réponses invalides de suite" in err, "fr: the same message in French")
if os.path.exists("/dev/full"):
    with open("/dev/full", "w") as full:
        p = subprocess.run([QUIZ, "--reveal"], stdout=full, stderr=subprocess.PIPE, timeout=60)
    check(p.returncode == 1 and b"cannot write the output" in p.stderr,
          f"--reveal > /dev/full: exit 1 with a message (got {p.returncode}: {p.stderr[:200]!r})")

# ---- --preview ------------------------------------------------------------------------------------
for lang in ("en", "fr"):
    rc, out, err = run(["--preview", "--lang", lang])
    plain = out.replace("\u00a0", " ")
    check(rc == 0, f"{lang}: --preview exits 0")
    check(len(re.findall(r"^Question [1-8] (of|sur) 8", plain, re.M)) == 8, f"{lang}: --preview lists 8 questions")
    check(len(re.findall(r"^  [A-D]\) ", plain, re.M)) == 32, f"{lang}: --preview lists 32 options")
    check("Answer" not in plain and "Réponse" not in plain, f"{lang}: --preview shows no answers")
    check(not wide_lines(out), f"{lang}: --preview fits 80 columns")
    rc, out, err = run(["--preview", "--json", "--lang", lang])
    p = json.loads(out)
    check(len(p["questions"]) == 8 and all(len(q["options"]) == 4 and "answer" not in q for q in p["questions"]),
          f"{lang}: --preview --json structure")

# ---- --reveal with demos: every demo, in both languages, within 80 columns and 2 seconds -----------
for lang in ("en", "fr"):
    rc, out, err = run(["--reveal", "--lang", lang])
    check(rc == 0, f"{lang}: --reveal exits 0 ({err})")
    check(not wide_lines(out), f"{lang}: --reveal fits 80 columns: {wide_lines(out)[:3]}")
    check(out.count("libfloat") >= 8, f"{lang}: a demo after each question")
check("Measured on this machine" in run(["--reveal", "--question", "5"])[1], "Q5's measurement is labelled as this machine's")
rc, out, err = run(["--reveal", "--json", "--question", "8"])
r = json.loads(out)
check(len(r["questions"]) == 1 and "demo" in r["questions"][0] and "NaN" in r["questions"][0]["demo"], "--reveal --json carries the demo text")

# ---- a full non-interactive run with demos -------------------------------------------------------
# No timing thresholds here (a loaded machine would make them flaky, and speed is measured in bench/):
# the run completes with the full score, and Q5 reports the duration of its own live measurement.
rc, out, err = run(["--answers", ANSWERS])
check(rc == 0 and SCORE["en"].format(8, 8) in out, "full run with demos: 8/8")
m = re.search(r"Measured on this machine just now \((\d+\.\d+) s;", out)
check(m is not None, "Q5 reports how long its live measurement took")

# ---- --json result and --shuffle ------------------------------------------------------------------
rc, out, err = run(["--answers", ANSWERS, "--json"])
j = json.loads(out)
check(j["score"] == 8 and j["answered"] == 8 and j["complete"] and j["missed"] == [], "--json: 8/8")
check(all(q["correct"] and q["given"] == q["answer"] for q in j["questions"]), "--json: every question correct")
rc, out, err = run(["--json"], stdin="B\n")
j = json.loads(out)
check(j["answered"] == 1 and not j["complete"] and j["missed"] == [1], "--json: end of input, partial result")
rc, out, err = run(["--reveal", "--json", "--no-demo", "--shuffle", "--seed", "5"])
shuffled = "".join(q["answer"] for q in json.loads(out)["questions"])
check(shuffled != ANSWERS, "--shuffle moves the answers")
rc, out, err = run(["--answers", shuffled, "--shuffle", "--seed", "5", "--json"])
check(json.loads(out)["score"] == 8, "--shuffle: the shown letters map to the right answers")
rc, out, err = run(["--answers", ANSWERS, "--shuffle", "--seed", "5", "--json"])
check(json.loads(out)["score"] < 8, "--shuffle: the unshuffled letters are no longer all right")

# ---- usage errors: exit 2, naming what is accepted -----------------------------------------------
for args, needle in [
    (["--answers", "ABCX"], "'X' at position 4"),
    (["--answers", "ABC"], "8 expected"),
    (["--answers", "AB", "--question", "2"], "1 expected"),
    (["--question", "9"], "accepted: 1 to 8"),
    (["--question", "0"], "accepted: 1 to 8"),
    (["--lang", "de"], "accepted: en, fr"),
    (["--lang", "de_DE.UTF-8"], "or a locale name such as fr_FR.UTF-8"),
    (["--color", "sometimes"], "accepted: auto, always, never"),
    (["--frobnicate"], "frobnicate"),
]:
    rc, out, err = run(args)
    check(rc == 2 and needle in err, f"{' '.join(args)}: exit 2 and '{needle}' (got {rc}: {err.strip()})")
rc, out, err = run(["--help"])
check(rc == 0 and "Examples:" in out and "--answers" in out and not wide_lines(out), "--help: examples, 80 columns")
rc, out, err = run(["--version"])
check(rc == 0 and out.startswith("mixed-precision-quiz "), "--version")

# ---- language from the environment; colour ---------------------------------------------------------
check("Question 1 sur 8" in run(["--preview"], env_extra={"LANG": "fr_FR.UTF-8"})[1].replace("\u00a0", " "), "LANG=fr_FR selects French")
check("Question 1 of 8" in run(["--preview"], env_extra={"LANG": "fr_FR.UTF-8", "LC_ALL": "C"})[1], "LC_ALL=C wins over LANG")
for name, want in [("fr_FR.UTF-8", "Question 1 sur 8"), ("fr", "Question 1 sur 8"), ("FR", "Question 1 sur 8"),
                   ("fr-CA", "Question 1 sur 8"), ("en_GB", "Question 1 of 8"), ("en_US.UTF-8", "Question 1 of 8")]:
    rc, out, err = run(["--preview", "--lang", name])
    check(rc == 0 and want in out.replace("\u00a0", " "), f"--lang {name}: {want}")
check("\x1b[" not in run(["--preview"])[1], "no colour when piped")
check("\x1b[" in run(["--preview", "--color", "always"])[1], "--color always")
check("\x1b[" not in run(["--preview", "--color", "never"])[1], "--color never")


# ---- one run under a pseudo-terminal: the interactive prompt -----------------------------------------
def pty_run(env_extra, answers):
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG", "NO_COLOR")}
    env.update(env_extra)
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(QUIZ, [QUIZ, "--no-demo"], env)
    out = b""
    sent = 0
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        # Answer each prompt as it appears (the terminal echoes what is typed).
        if out.count(b"q to quit):") > sent and sent < len(answers):
            os.write(fd, answers[sent].encode() + b"\n")
            sent += 1
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


rc, out = pty_run({}, ["b", "B", "q"])
plain = re.sub(r"\x1b\[[0-9;]*m", "", out).replace("\r", "")
check(rc == 0, f"pty: exit 0 (got {rc})")
check("Your answer (A-D, q to quit): b\n" in plain, "pty: the prompt waits on the same line; the terminal echoes the answer once")
check("Not quite: the answer is A." in plain and "Correct." in plain, "pty: verdicts")
check(SCORE["en"].format(1, 2) in plain, "pty: q gives the summary so far")
check("\x1b[" in out, "pty: colour on a terminal")
rc, out = pty_run({"NO_COLOR": "1"}, ["q"])
check("\x1b[" not in out and "No question answered." in out, "pty: NO_COLOR turns colour off")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all quiz CLI checks passed")
