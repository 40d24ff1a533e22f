"""Reading the components of a message the bot sent to the fake Discord."""


def buttons(message: dict) -> list[dict]:
    return [c for row in message.get("components", []) for c in row.get("components", [])]


def button(message: dict, label: str) -> dict:
    found = [b for b in buttons(message) if b.get("label") == label]
    assert found, f"no button {label!r} in {[b.get('label') for b in buttons(message)]}"
    return found[0]
