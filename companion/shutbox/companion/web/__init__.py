"""The web scoreboard: the page for phones and a TV, its guard, the review and leaderboard pages."""
