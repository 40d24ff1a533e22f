"""Every capability's rendering to a `Reply` (messages.py; voice.py for voice answers), the
named texts, Discord's limits and the `Reply` types. Kept free of imports so that importing
`bot.render.replies` never loads the rest."""
