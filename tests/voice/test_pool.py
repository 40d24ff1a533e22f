"""The transcription worker pool: warm at start, bounded, typed errors across the process
boundary, a dead worker replaced, and the caller's event loop never blocked."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from serving.speech import AudioTooLarge, NoSpeech, SpeechBusy, SpeechFailed, SpeechLimits, SpeechOptions, SpeechPool
from tests.voice.conftest import audio

HINTS = ["Grouped-query attention", "GQA", "KV"]


@pytest.fixture(scope="module")
def pool():
    options = SpeechOptions(threads=1, limits=SpeechLimits(max_bytes=2_000_000))
    with SpeechPool(options, workers=1, queue=1, timeout_s=180) as started:
        yield started


def test_the_pool_starts_warm(pool):
    assert len(pool.worker_info) == 1
    info = pool.worker_info[0]
    assert info["pid"] != os.getpid() and info["load_s"] > 0  # the model loaded in the worker, at start


async def test_a_burst_beyond_the_queue_is_refused_politely_and_the_rest_complete(pool):
    data = audio("gqa.wav")
    accepted = [pool.submit(data, HINTS) for _ in range(pool.capacity)]  # one running, one waiting
    assert pool.in_flight == 2
    with pytest.raises(SpeechBusy) as caught:
        pool.submit(data, HINTS)
    assert "try again in a minute" in caught.value.user_message
    results = await asyncio.gather(*(asyncio.wrap_future(f) for f in accepted))
    assert all("query attention" in r.text.lower() for r in results)
    assert pool.in_flight == 0
    assert "query attention" in (await pool.transcribe(data, HINTS)).text.lower()  # room again


async def test_the_event_loop_keeps_ticking_while_workers_transcribe(pool):
    """Quiz clicks are handled on the bot's event loop: a transcription must not stall it.

    No absolute bound (a loaded machine stalls any loop now and then): a transcription run on
    the loop would stall it for the whole job, so the longest stall is compared with the job."""
    started = time.perf_counter()
    job = asyncio.ensure_future(pool.transcribe(audio("kv_cache.ogg"), ["KV cache"]))
    worst, ticks = 0.0, 0
    while not job.done():
        before = time.perf_counter()
        await asyncio.sleep(0.01)
        worst = max(worst, time.perf_counter() - before)
        ticks += 1
    took = time.perf_counter() - started
    assert "cache" in (await job).text.lower()
    assert ticks > 20 and worst < took / 3, (ticks, worst, took)


async def test_errors_come_back_typed_and_size_is_checked_before_the_worker(pool):
    with pytest.raises(NoSpeech):
        await pool.transcribe(audio("silence.ogg"))
    with pytest.raises(AudioTooLarge):
        pool.submit(b"\0" * 2_000_001)
    assert pool.in_flight == 0


async def test_a_dead_worker_is_a_polite_error_and_the_pool_recovers(pool):
    old_pid = pool.worker_info[0]["pid"]
    job = asyncio.ensure_future(pool.transcribe(audio("kv_cache.ogg"), ["KV cache"]))
    await asyncio.sleep(0.5)  # the job is in the worker
    os.kill(old_pid, signal.SIGKILL)
    with pytest.raises(SpeechFailed) as caught:
        await job
    assert "try again" in caught.value.user_message
    assert pool.in_flight == 0
    heard = await pool.transcribe(audio("gqa.wav"), HINTS)  # a fresh worker takes the next one
    assert "query attention" in heard.text.lower()


def test_every_worker_of_a_larger_pool_has_its_model_loaded_before_start_returns():
    with SpeechPool(SpeechOptions(threads=1), workers=2, queue=0) as two:
        pids = {info["pid"] for info in two.worker_info}
        assert len(pids) == 2 and all(info["load_s"] > 0 for info in two.worker_info)
        assert two.capacity == 2


def test_a_worker_ends_when_its_owner_is_killed(tmp_path):
    """SIGKILL gives the bot no chance to close its pool; the worker must not live on (it would
    hold memory, and the pipes it inherited: a supervisor waiting on the bot's stderr would hang)."""
    import subprocess
    import sys

    script = tmp_path / "a_bot.py"
    script.write_text(
        "import time\n"
        "from serving.speech import SpeechOptions, SpeechPool\n"
        "if __name__ == '__main__':\n"
        "    pool = SpeechPool(SpeechOptions(threads=1), workers=1).start()\n"
        "    print(pool.worker_info[0]['pid'], flush=True)\n"
        "    time.sleep(600)\n")
    owner = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=os.getcwd(),
                             env={**os.environ, "PYTHONPATH": os.getcwd()})
    try:
        worker_pid = int(owner.stdout.readline())
        assert _alive(worker_pid)
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait()
    deadline = time.monotonic() + 15
    while _alive(worker_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker_pid)


def _alive(pid: int) -> bool:
    """Running (an orphan reaped by init, or a zombie, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
