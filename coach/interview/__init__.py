"""Mock interviews (/interview): rules, records and the turn-by-turn flow."""
