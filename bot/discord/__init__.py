"""The Discord front end: what needs discord.py (the client and its shards, command
registration, the adapter, views and modals, voice messages, the daily poster's loops)."""
