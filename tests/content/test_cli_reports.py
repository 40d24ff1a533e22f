"""`coach content reports` lists what members filed with "report this", from the real store."""

import asyncio
import json
import os
import subprocess
import sys

from bot.services import build_services
from coach.config import Settings


def test_reports_lists_a_filed_report(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'coach.db'}"

    async def file_one():
        services = await build_services(Settings(database_url=url, data_dir=tmp_path))
        try:
            await services.coach.account.report(7, 9, "kv-cache-q1", "option B reads as right too")
        finally:
            await services.close()

    asyncio.run(file_one())
    env = dict(os.environ, DATABASE_URL=url, DATA_DIR=str(tmp_path))
    listed = subprocess.run([sys.executable, "-m", "bot.cli", "content", "reports", "--json"],
                            capture_output=True, text=True, timeout=120, env=env)
    assert listed.returncode == 0, listed.stderr
    (report,) = json.loads(listed.stdout)["reports"]
    assert (report["item_id"], report["user_id"], report["note"]) == ("kv-cache-q1", 7, "option B reads as right too")
