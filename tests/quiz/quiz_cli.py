#!/usr/bin/env python3
"""mixed-precision-quiz run as a person runs it: scripted answers in both languages, invalid input,
end of input, q, --preview/--reveal/--json structure, usage errors, one run under a pseudo-terminal,
the 80-column limit and the 2-second budget of a full non-interactive run.

Usage: quiz_cli.py <path to mixed-precision-quiz>
"""
import json
import os
import pty
import signal
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


def wide_lines(text, width=80):
    return [l for l in text.split("\n") if len(l) > width]


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
check("Question 2, Loss scaling: mixed-precision-quiz --guide 2 · docs/guide/en.md#fp16-range-and-loss-scaling" in flat(out),
      "end of input: the missed question's guide, as the command and the file")
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

# ---- --level hard: questions 9-16, in the same form -------------------------------------------------
ref_hard = {}
for lang in ("en", "fr"):
    rc, out, err = run(["--level", "hard", "--reveal", "--json", "--no-demo", "--lang", lang])
    check(rc == 0, f"{lang}: --level hard --reveal --json exits 0 ({err})")
    r = ref_hard[lang] = json.loads(out)
    check([q["number"] for q in r["questions"]] == list(range(9, 17)), f"{lang}: --level hard asks questions 9 to 16")
    for q in r["questions"]:
        check(len(q["options"]) == 4 and all(q["options"]) and q["explanation"], f"{lang} Q{q['number']}: 4 options, an explanation")
        check(sorted(q["why_not"]) == sorted(set("ABCD") - {q["answer"]}), f"{lang} Q{q['number']}: why_not for each wrong option")
    rc, out, err = run(["--level", "hard", "--preview", "--lang", lang])
    plain = out.replace("\u00a0", " ")
    check(rc == 0 and len(re.findall(r"^Question (9|1[0-6]) (of|sur) 16", plain, re.M)) == 8, f"{lang}: --level hard --preview lists 8 questions")
    for width in (40, 80):
        rc, out, err = run(["--level", "hard", "--reveal", "--lang", lang, "--width", str(width)])
        long = [l for l in out.split("\n") if len(l) > width]
        check(rc == 0 and not long, f"{lang}: --level hard --reveal with demos fits {width} columns: {long[:2]}")
        check(out.count("libfloat") >= 8, f"{lang}: --level hard: a demo after each question")
HARD = "".join(q["answer"] for q in ref_hard["en"]["questions"])
check(HARD == "".join(q["answer"] for q in ref_hard["fr"]["questions"]), "hard level: the same answers in en and fr")
rc, out, err = run(["--level", "hard", "--answers", HARD, "--json"])
j = json.loads(out)
check(rc == 0 and j["level"] == "hard" and j["total"] == 16 and j["asked"] == 8 and j["score"] == 8, "--level hard --json: 8/8 of 16")
rc, out, err = run(["--answers", ANSWERS, "--json"])
check(json.loads(out)["level"] == "medium" and json.loads(out)["total"] == 8, "default level: medium, 8 questions")
rc, out, err = run(["--question", "12", "--answers", HARD[3], "--no-demo"])
check(rc == 0 and "Question 12 of 16" in out and SCORE["en"].format(1, 1) in out, "--question 12 asks a hard question")
rc, out, err = run(["--level", "expert"])
check(rc == 2 and "medium, hard" in err and "'expert'" in err, "--level expert: exit 2, naming the accepted levels")
rc, out, err = run(["--level", "expert", "--lang", "fr"])
check(rc == 2 and "n'est pas un niveau" in err, "--level in French")

# ---- --reveal with demos: every demo, in both languages, within 80 columns and 2 seconds -----------
for lang in ("en", "fr"):
    rc, out, err = run(["--reveal", "--lang", lang])
    check(rc == 0, f"{lang}: --reveal exits 0 ({err})")
    check(not wide_lines(out), f"{lang}: --reveal fits 80 columns: {wide_lines(out)[:3]}")
    check(out.count("libfloat") >= 8, f"{lang}: a demo after each question")
check("Measured on this machine" in run(["--reveal", "--question", "5"])[1], "Q5's measurement is labelled as this machine's")
rc, out, err = run(["--reveal", "--json", "--question", "8"])
r = json.loads(out)
demo = r["questions"][0].get("demo", [])
check(len(r["questions"]) == 1 and any("NaN" in b.get("text", "") for b in demo), "--reveal --json carries the demo's text blocks")
tables = [b["table"] for b in demo if "table" in b]
check(len(tables) == 1 and tables[0]["columns"][0] == "op (role)" and all(len(row) == 3 for row in tables[0]["rows"]),
      "--reveal --json: the demo's table as columns and rows")
sums = [b for b in demo if b.get("key") == "q8.demo.sum"]
check(len(sums) == 1 and sums[0]["values"]["n"] == 10000 and isinstance(sums[0]["values"]["fp16"], (int, float)),
      "--reveal --json: a text block carries its language key and its numbers as JSON numbers")

# ---- the layout follows the width: every line fits, no word is split, nothing is lost ------------
def words(text):
    return sorted(text.replace("\u00a0", " ").split())

for lang in ("en", "fr"):
    full = {}
    for width in (40, 57, 80, 120):
        rc, out, err = run(["--reveal", "--lang", lang, "--width", str(width), "--no-demo"])
        check(rc == 0 and not wide_lines(out, width), f"{lang}: --reveal --width {width} fits: {wide_lines(out, width)[:2]}")
        full[width] = words(out)
    # Without demos, wrapping only moves line breaks: the same words at every width (the guide
    # line names the file only where the path fits).
    path = [w for w in full[80] if w.startswith("docs/guide/") and "#" in w and len(w) > 40]
    check(all(full[w] == full[80] for w in (57, 120)), f"{lang}: the same words at 57, 80 and 120 columns")
    check(sorted(full[40] + path + ["·"] * len(path)) == full[80], f"{lang}: the same words at 40 columns, less the guide paths")
    for width in (40, 80):
        rc, out, err = run(["--reveal", "--lang", lang, "--width", str(width)])
        check(rc == 0 and not wide_lines(out, width), f"{lang}: --reveal with demos at {width} columns fits: {wide_lines(out, width)[:2]}")
# A table too wide for 40 columns is stacked: one block per row, each value after its heading.
rc, out, err = run(["--reveal", "--question", "3", "--width", "40"])
check("  fp32\n    largest: 3.4028235e+38\n" in out, "40 columns: Q3's limits table stacked, heading: value")
rc, out, err = run(["--reveal", "--question", "3", "--width", "80"])
check(re.search(r"^  fp32 +3\.4028235e\+38 +2\^-126 +2\^-149 +2\^-23$", out, re.M) is not None,
      "80 columns: the same table in columns")
rc, out, err = run(["--reveal", "--question", "1", "--lang", "fr", "--width", "40"])
check("    w final\u00a0: 1\n" in out, "fr, 40 columns: the stacked heading takes a no-break space before ':'")
# COLUMNS counts only on a terminal; piped output is laid out for 80 columns.
rc, out, err = run(["--reveal", "--question", "3", "--no-demo"], env_extra={"COLUMNS": "40"})
check(max(len(l) for l in out.split("\n")) > 40, "piped: COLUMNS is ignored, 80 columns")
rc, out, err = run(["--width", "39"])
check(rc == 2 and "40 columns or more" in err, "--width 39: exit 2, naming what is accepted")

# ---- --guide: the guide's section for a question, in the quiz's language, at the width ------------
rc, out, err = run(["--guide", "2", "--width", "40"])
check(rc == 0 and out.startswith("FP16 range and loss scaling (question 2)") and "Master weights" not in out,
      "--guide 2: the section of question 2, and only it")
check(not wide_lines(out.split("```")[0], 40) and "36.67%" in out, "--guide 2 at 40 columns: the demo recomputed at that width")
rc, out2, err = run(["--guide", "fp16-range-and-loss-scaling", "--width", "40"])
check(out2 == out, "--guide by section name = by question number")
rc, out, err = run(["--guide", "1", "--lang", "fr"])
check(rc == 0 and out.startswith("Poids maîtres") , "--guide in French")
rc, out, err = run(["--guide"])
check(rc == 0 and out.count("(question") >= 5 and "<!--" not in out and "](" not in out, "--guide: the whole guide, no Markdown marks")
# Every section at 40 columns in both languages: headings wrap like text; only a single token wider
# than the screen (a long Python name) may stick out, never a line with a space to break at; a line
# of the source that starts with a value (<!--v:name-->) is text, not a comment.
for lang in ("en", "fr"):
    for n in range(1, 17):
        rc, out, err = run(["--guide", str(n), "--lang", lang, "--width", "40"])
        bad = [l for l in out.split("```")[0].split("\n") if len(l) > 40 and " " in l.strip()]
        check(rc == 0 and not bad, f"{lang}: --guide {n} at 40 columns: {bad[:2]}")
rc, out, err = run(["--guide", "16", "--lang", "fr"])
check("un scale E8M0, une puissance de deux" in flat(out), "--guide: a line starting with a value is shown")
rc, out, err = run(["--guide", "17"])
check(rc == 2 and "1 to 16" in err and "master-weights" in err, "--guide 17: exit 2, naming the accepted topics")
rc, out, err = run(["--guide", "12"])
check(rc == 0 and "(question 12)" in out.split("\n")[0] and "(question 11)" not in out, "--guide 12: the hard question's section, and only it")

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
rc, out, err = run(["--answers", shuffled, "--shuffle", "--seed", "5", "--no-demo"])
check("The options are shuffled (seed 5)" in flat(out), "--shuffle says so")
rc, out, err = run(["--answers", ANSWERS, "--shuffle", "--seed", "5", "--json"])
check(json.loads(out)["score"] < 8, "--shuffle: the unshuffled letters are no longer all right")

# ---- usage errors: exit 2, naming what is accepted -----------------------------------------------
for args, needle in [
    (["--answers", "ABCX"], "'X' at position 4"),
    (["--answers", "ABC"], "8 expected"),
    (["--answers", "AB", "--question", "2"], "1 expected"),
    (["--question", "17"], "accepted: 1 to 16"),
    (["--question", "0"], "accepted: 1 to 16"),
    (["--lang", "de"], "accepted: en, fr"),
    (["--lang", "de_DE.UTF-8"], "or a locale name such as fr_FR.UTF-8"),
    (["--color", "sometimes"], "accepted: auto, always, never"),
    (["--frobnicate"], "frobnicate"),
]:
    rc, out, err = run(args)
    check(rc == 2 and needle in err, f"{' '.join(args)}: exit 2 and '{needle}' (got {rc}: {err.strip()})")
rc, out, err = run(["--help"])
check(rc == 0 and "Examples:" in out and "--answers" in out and not wide_lines(out, 79), "--help: examples, 80 columns")
check("ABCDABCD" not in out, "--help does not print the answer key as its example")
# --help and the usage messages in French, from --lang or from the locale.
for args, env in [(["--help", "--lang", "fr"], None), (["--help"], {"LANG": "fr_FR.UTF-8"})]:
    rc, out, err = run(args, env_extra=env)
    check(rc == 0 and "Exemples" in out and "Affiche cette aide" in out and "Examples:" not in out
          and not wide_lines(out, 79), f"{' '.join(args)} {env or ''}: --help in French, 80 columns")
for args, needle in [
    (["--lang", "fr", "--question", "17"], "est hors limites (accepté\u00a0: de 1 à 16)"),
    (["--lang", "fr", "--answers", "ABX"], "'X' en position 3 n'est pas une réponse"),
    (["--lang", "fr", "--answers", "A"], "contient 1 réponse\u00a0; il en faut 8"),
    (["--lang", "fr", "--width", "12"], "accepté\u00a0: 40 colonnes ou plus"),
    (["--lang", "fr", "--guide", "x"], "n'est pas une section du guide"),
    (["--lang", "fr", "--color", "x"], "n'est pas accepté"),
    (["--answers", "A"], "has 1 answer; 8 expected"),
    (["--lang", "fr", "--frobnicate"], "argument(s) inattendu(s)\u00a0: --frobnicate (--help liste les options)"),
    (["--lang", "fr", "--question", "x"], "valeur du mauvais type\u00a0: --question = x"),
]:
    rc, out, err = run(args)
    check(rc == 2 and needle in err, f"{' '.join(args)}: exit 2 and '{needle}' (got {rc}: {err.strip()})")
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
PROMPTS = (b"q to quit):", b"(q quits).", b"goes back to the quiz):")


def pty_run(env_extra, answers, args=("--no-demo",), eof_on=None):
    """Runs the quiz under a pseudo-terminal and answers each prompt (an answer or the pause after
    the feedback) with the next of answers. Returns (exit status, output); a run still going after
    20 s is killed (exit status None). eof_on: when that text appears, type Ctrl-D (end of input)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG", "NO_COLOR")}
    env.update(env_extra)
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(QUIZ, [QUIZ] + list(args), env)
    out = b""
    sent = 0
    eof_sent = False
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
        if sum(b" ".join(out.split()).count(p) for p in PROMPTS) > sent and sent < len(answers):
            os.write(fd, answers[sent].encode() + b"\n")
            sent += 1
        if eof_on is not None and not eof_sent and eof_on in b" ".join(out.split()):
            os.write(fd, b"\x04")
            eof_sent = True
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return None, out.decode("utf-8", "replace")
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def strip(out):
    return re.sub(r"\x1b\[[0-9;]*m", "", out).replace("\r", "")


rc, out = pty_run({}, ["b", "", "B", "q"])
plain = strip(out)
check(rc == 0, f"pty: exit 0 (got {rc})")
check("Your answer (A-D, q to quit): b\n" in plain, "pty: the prompt waits on the same line; the terminal echoes the answer once")
check("Not quite: the answer is A." in plain and "Correct." in plain, "pty: verdicts")
check(SCORE["en"].format(1, 2) in plain, "pty: q gives the summary so far")
check("\x1b[" in out, "pty: colour on a terminal")
# The pause: after the feedback, nothing more until Enter; q there stops with the summary.
before = plain.split("Press Enter for the next question (q quits).")  # (--no-demo: nothing to try)
check(len(before) == 3 and "Question 2 of 8" not in before[0] and "Question 2 of 8" in before[1],
      "pty: the quiz waits for Enter after each answer's feedback")
# t at the pause: the learner's own values, computed by the library; bad input asks again with the
# accepted form; an empty line goes back to the pause.
rc, out = pty_run({}, ["a", "t", "1 1e-4", "one", "", "", "q"], args=("--color", "never"))
plain = " ".join(strip(out).split())
check(rc == 0 and "Try it: type a weight and an update" in plain, "pty: t after the demo offers to try it")
check(re.search(r"fp16 1 1e-04 2\^-11 1 lost", plain) and re.search(r"fp32 1 1e-04 2\^-24 1\.0001 kept", plain),
      "pty: try it computes w + u in each format")
check("Not understood: 'one'. Type two numbers, a weight and an update, such as 1 1e-4." in plain,
      "pty: try it refuses bad input with the accepted form")
check(plain.count("Press Enter for the next question, or t to try it yourself") == 2 and "Question 2 of 8" in plain,
      "pty: an empty line goes back to the pause, then Enter to question 2")
rc, out = pty_run({}, ["a", "q"])
check(rc == 0 and SCORE["en"].format(1, 1) in strip(out) and "Question 2 of 8" not in strip(out), "pty: q at the pause stops")
rc, out = pty_run({}, ["b", "B", "q"], args=("--no-demo", "--no-pause"))
check(rc == 0 and "Press Enter" not in strip(out) and SCORE["en"].format(1, 2) in strip(out), "pty: --no-pause goes straight on")
rc, out = pty_run({"COLUMNS": "40"}, ["q"], args=("--no-demo",))
check(rc == 0 and max(len(l) for l in strip(out).split("\n")) <= 40, "pty: COLUMNS=40 lays out for 40 columns")
rc, out = pty_run({"NO_COLOR": "1"}, ["q"])
check("\x1b[" not in out and "No question answered." in out, "pty: NO_COLOR turns colour off")
# --json on a terminal says that it reads the answers from stdin (on stderr, so stdout stays JSON).
rc, out = pty_run({}, [], args=("--json",), eof_on=b"pipe them in.")
check(rc == 0 and "--json reads the answers from standard input" in " ".join(out.split()),
      "pty: --json on a terminal says how to answer")
check('"answered": 0' in out, "pty: --json, end of input at once: the JSON result of no answers")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all quiz CLI checks passed")
