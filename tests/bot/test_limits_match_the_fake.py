"""bot/render/limits.py cuts every reply to Discord's limits and `limits.problems` checks the result
with the same constants: a wrong number there would pass its own check. The fake Discord's
tests/fakediscord/limits.py was written apart from it, from Discord's documentation; the two must
agree on every number the bot relies on."""

from bot.render import limits as bot_limits
from tests.fakediscord import limits as discord_limits

# The bot's name -> the fake's name for the same limit.
SAME_LIMIT = {
    "CONTENT": "CONTENT_MAX",
    "EMBED_TITLE": "EMBED_TITLE_MAX",
    "EMBED_DESCRIPTION": "EMBED_DESCRIPTION_MAX",
    "EMBED_FIELDS": "EMBED_FIELDS_MAX",
    "FIELD_NAME": "FIELD_NAME_MAX",
    "FIELD_VALUE": "FIELD_VALUE_MAX",
    "FOOTER": "FOOTER_MAX",
    "EMBED_TOTAL": "EMBED_TOTAL_MAX",
    "ROWS": "ROWS_MAX",
    "PER_ROW": "BUTTONS_PER_ROW_MAX",
    "CUSTOM_ID": "CUSTOM_ID_MAX",
    "BUTTON_LABEL": "BUTTON_LABEL_MAX",
    "MODAL_TITLE": "MODAL_TITLE_MAX",
    "INPUT_LABEL": "TEXT_INPUT_LABEL_MAX",
    "INPUT_VALUE": "TEXT_INPUT_MAX",
    "PLACEHOLDER": "PLACEHOLDER_MAX",
    "ATTACHMENT_DESCRIPTION": "ATTACHMENT_DESCRIPTION_MAX",
    "ATTACHMENT_BYTES": "ATTACHMENT_SIZE_MAX",
}


def test_every_limit_the_bot_cuts_to_is_the_fake_discords():
    differ = {ours: (getattr(bot_limits, ours), theirs, getattr(discord_limits, theirs))
              for ours, theirs in SAME_LIMIT.items() if getattr(bot_limits, ours) != getattr(discord_limits, theirs)}
    assert differ == {}


def test_no_limit_of_the_bot_goes_unchecked():
    """A limit added to bot/render/limits.py needs its counterpart here (and in the fake)."""
    numbers = {name for name, value in vars(bot_limits).items()
               if name.isupper() and isinstance(value, int) and not isinstance(value, bool)}
    assert numbers == set(SAME_LIMIT)
