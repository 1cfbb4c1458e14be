"""The scorekeeper at the table (``shutbox.companion``): the live game with the box (``live``), the web scoreboard
(``web``), simulated boxes (``sim``) and the game history (``store``). The rules and the solver it keeps score with
are the game domain's (:mod:`shutbox.game`)."""
