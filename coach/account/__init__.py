"""A member's account: settings, "forget me" (`/forget`), and reports on questions (`service`)."""
