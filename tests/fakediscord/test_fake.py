"""The fake Discord enforces what Discord enforces (checked with plain HTTP)."""

import aiohttp
import pytest

from tests.fakediscord import FakeDiscord, payloads


@pytest.fixture
async def world():
    fake = await FakeDiscord().start()
    guild = fake.add_guild()
    fake.global_commands = [{"id": "1", "name": "ping", "type": 1, "options": []}]
    async with aiohttp.ClientSession() as http:
        yield fake, guild, http
    await fake.stop()


async def call(http, method, url, body=None):
    async with http.request(method, url, json=body) as response:
        return response.status, response.headers, await response.json(content_type=None) if response.status != 204 else None


async def interaction(fake, guild):
    return await fake.slash(fake.add_user("u"), "ping", guild=guild)


async def test_one_initial_response_and_the_three_second_rule(world):
    fake, guild, http = world
    record = await interaction(fake, guild)
    url = f"{fake.api_base}/interactions/{record.id}/{record.token}/callback"
    status, headers, _ = await call(http, "POST", url, {"type": 4, "data": {"content": "hi"}})
    assert status == 200 and headers["Content-Type"] == "application/json"
    status, _, body = await call(http, "POST", url, {"type": 4, "data": {"content": "again"}})
    assert (status, body["code"]) == (400, 40060)

    late = await interaction(fake, guild)
    fake.advance(3.5)
    status, _, body = await call(http, "POST", f"{fake.api_base}/interactions/{late.id}/{late.token}/callback",
                                 {"type": 5})
    assert (status, body["code"]) == (404, 10062)


async def test_limits_are_refused_with_400(world):
    fake, guild, http = world
    too_long_id = {"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": "x" * 101}]}
    bad = [
        {"type": 4, "data": {"content": "x" * 2001}},
        {"type": 4, "data": {"embeds": [{"description": "x" * 4097}]}},
        {"type": 4, "data": {"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]}},
        {"type": 4, "data": {"embeds": [{"title": "t", "description": "x" * 4000,
                                         "fields": [{"name": "n", "value": "v" * 1000}] * 3}]}},
        {"type": 4, "data": {"components": [too_long_id]}},
        {"type": 4, "data": {"components": [{"type": 1, "components": [
            {"type": 2, "style": 1, "label": "x", "custom_id": f"b{i}"} for i in range(6)]}]}},
        {"type": 9, "data": {"title": "x" * 46, "custom_id": "m:-", "components": [
            {"type": 1, "components": [{"type": 4, "custom_id": "answer", "label": "a", "style": 2}]}]}},
    ]
    for body in bad:
        record = await interaction(fake, guild)
        status, _, reply = await call(http, "POST", f"{fake.api_base}/interactions/{record.id}/{record.token}/callback",
                                      body)
        assert (status, reply["code"]) == (400, 50035), body
        assert record.rejected and not record.callbacks


async def test_token_expires_after_fifteen_minutes(world):
    fake, guild, http = world
    record = await interaction(fake, guild)
    await call(http, "POST", f"{fake.api_base}/interactions/{record.id}/{record.token}/callback", {"type": 5})
    followup = f"{fake.api_base}/webhooks/{fake.app_id}/{record.token}"
    assert (await call(http, "POST", followup, {"content": "in time"}))[0] == 200
    fake.advance(15 * 60 + 1)
    status, _, body = await call(http, "POST", followup, {"content": "too late"})
    assert (status, body["code"]) == (401, 50027)


async def test_nonce_deduplication_only_when_enforced(world):
    fake, guild, http = world
    url = f"{fake.api_base}/channels/{guild['channels'][0]['id']}/messages"
    first = (await call(http, "POST", url, {"content": "a", "nonce": "n1", "enforce_nonce": True}))[2]
    again = (await call(http, "POST", url, {"content": "a", "nonce": "n1", "enforce_nonce": True}))[2]
    loose = (await call(http, "POST", url, {"content": "a", "nonce": "n1"}))[2]
    assert first["id"] == again["id"] != loose["id"]


async def test_injected_faults_and_forbidden_channels(world):
    fake, guild, http = world
    channel_id = guild["channels"][0]["id"]
    fake.inject(429, path="/users/@me$", retry_after=0.25)
    status, headers, body = await call(http, "GET", f"{fake.api_base}/users/@me")
    assert status == 429 and headers["Via"] and body["retry_after"] == 0.25
    assert (await call(http, "GET", f"{fake.api_base}/users/@me"))[0] == 200, "only as many times as asked"
    fake.forbid_channel(channel_id)
    status, _, body = await call(http, "POST", f"{fake.api_base}/channels/{channel_id}/messages", {"content": "x"})
    assert (status, body["code"]) == (403, 50013)
    assert [r.status for r in fake.requests] == [429, 200, 403]


def test_snowflakes_are_unique_and_ordered():
    ids = [payloads.snowflake() for _ in range(1000)]
    assert ids == sorted(ids) and len(set(ids)) == 1000


async def test_control_api_of_the_standalone_fake():
    from tests.fakediscord.__main__ import serve

    fake, guilds = await serve(guild_count=2)
    fake.global_commands = [{"id": "1", "name": "ping", "type": 1, "options": []}]
    try:
        async with aiohttp.ClientSession() as http:
            status, _, pushed = await call(http, "POST", f"{fake.base_url}/_fake/slash",
                                           {"user": "alice", "guild": 1, "name": "ping"})
            assert status == 200
            record = fake.interactions[pushed["id"]]
            assert record.payload["guild_id"] == guilds[1]["id"]
            url = f"{fake.api_base}/interactions/{record.id}/{record.token}/callback"
            await call(http, "POST", url, {"type": 4, "data": {"content": "pong"}})
            _, _, seen = await call(http, "GET", f"{fake.base_url}/_fake/interactions/{pushed['id']}")
            assert seen["callbacks"][0]["type"] == 4 and seen["original"]["content"] == "pong"
            _, _, stats = await call(http, "GET", f"{fake.base_url}/_fake/stats")
            assert stats["interactions"] == stats["acknowledged"] == 1
    finally:
        await fake.stop()


def png_bytes(width: int = 3, height: int = 2) -> bytes:
    """A valid PNG of the given size (what the fake reads: signature and IHDR)."""
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buffer, format="PNG")
    return buffer.getvalue()


def multipart(payload: dict, files: list[tuple[str, bytes]]) -> aiohttp.FormData:
    import json

    form = aiohttp.FormData()
    form.add_field("payload_json", json.dumps(payload), content_type="application/json")
    for index, (name, data) in enumerate(files):
        form.add_field(f"files[{index}]", data, filename=name, content_type="application/octet-stream")
    return form


async def post_form(http, method, url, form):
    async with http.request(method, url, data=form) as response:
        return response.status, await response.json(content_type=None)


async def test_files_become_attachments_with_their_description_and_size(world):
    fake, guild, http = world
    channel_id = guild["channels"][0]["id"]
    picture = png_bytes(40, 30)
    payload = {"content": "with a picture", "attachments": [{"id": 0, "filename": "p.png", "description": "a chart"}]}
    status, message = await post_form(http, "POST", f"{fake.api_base}/channels/{channel_id}/messages",
                                      multipart(payload, [("p.png", picture)]))
    assert status == 200
    (attachment,) = message["attachments"]
    assert (attachment["filename"], attachment["description"], attachment["size"]) == ("p.png", "a chart", len(picture))
    assert (attachment["width"], attachment["height"], attachment["content_type"]) == (40, 30, "image/png")
    assert fake.attachment_data(attachment) == picture
    async with http.get(attachment["url"]) as response:
        assert await response.read() == picture
    assert fake.requests[-2].files == [(0, "p.png", len(picture))]

    # An interaction reply with a file, then an edit that replaces it.
    record = await interaction(fake, guild)
    url = f"{fake.api_base}/interactions/{record.id}/{record.token}/callback"
    status, _ = await post_form(http, "POST", url, multipart(
        {"type": 4, "data": {"content": "x", "attachments": [{"id": 0, "filename": "a.png"}]}}, [("a.png", picture)]))
    assert status == 200
    original = fake.messages[record.original_message_id]
    assert [a["filename"] for a in original["attachments"]] == ["a.png"]
    edit = f"{fake.api_base}/webhooks/{fake.app_id}/{record.token}/messages/@original"
    status, edited = await post_form(http, "PATCH", edit, multipart(
        {"attachments": [{"id": 0, "filename": "b.png", "description": "new"}]}, [("b.png", png_bytes())]))
    assert status == 200 and [(a["filename"], a["description"]) for a in edited["attachments"]] == [("b.png", "new")]
    status, _, kept = await call(http, "PATCH", edit, {"content": "text only"})
    assert status == 200 and [a["filename"] for a in kept["attachments"]] == ["b.png"], "an edit without files keeps them"


async def test_attachment_limits_and_a_channel_without_attach_files(world):
    fake, guild, http = world
    channel_id = guild["channels"][0]["id"]
    url = f"{fake.api_base}/channels/{channel_id}/messages"
    long_description = {"attachments": [{"id": 0, "filename": "p.png", "description": "x" * 1025}]}
    status, body = await post_form(http, "POST", url, multipart(long_description, [("p.png", png_bytes())]))
    assert (status, body["code"]) == (400, 50035)
    eleven = [(f"p{i}.png", png_bytes()) for i in range(11)]
    status, body = await post_form(http, "POST", url, multipart({"content": "many"}, eleven))
    assert (status, body["code"]) == (400, 50035)
    fake.deny_attachments(channel_id)
    status, body = await post_form(http, "POST", url, multipart({"content": "p"}, [("p.png", png_bytes())]))
    assert (status, body["code"]) == (403, 50013)
    assert (await call(http, "POST", url, {"content": "text still goes"}))[0] == 200


async def test_member_lookup_gives_the_nickname(world):
    fake, guild, http = world
    user = fake.add_user("さくら🌸")
    base = f"{fake.api_base}/guilds/{guild['id']}/members"
    status, _, member = await call(http, "GET", f"{base}/{user['id']}")
    assert status == 200 and member["user"]["global_name"] == "さくら🌸" and member["nick"] is None
    fake.set_nick(guild, user, "Saku")
    assert (await call(http, "GET", f"{base}/{user['id']}"))[2]["nick"] == "Saku"
    status, _, body = await call(http, "GET", f"{base}/12345")
    assert (status, body["code"]) == (404, 10007)
