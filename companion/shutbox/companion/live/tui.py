"""The scorekeeper's screen on a terminal: rich draws the board, the throw, the standings and the messages;
prompt_toolkit keeps the input line, so what is being typed survives every redraw.

:class:`ScreenView` is a session view. The picture is rendered by rich (in the session's thread, on
every change) to ANSI text that a prompt_toolkit application shows above its input line; the
application runs on its own thread and hands each entered line to ``submit`` as :class:`Typed`
(Ctrl-D on an empty line: :class:`InputClosed`; Ctrl-C interrupts the main thread as it would
without the screen). When the game ends the last picture stays on the terminal, the result in it once.
"""

from __future__ import annotations

import _thread
import io
import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich import box as rich_box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from shutbox.companion.live.livestate import LiveState
from shutbox.companion.live.session import InputClosed, Typed
from shutbox.game.replay import PHASE_WORDS
from shutbox.game.report import game_result_text, money, player_role, player_score, round_result_text
from shutbox.game.rules import rules_text

if TYPE_CHECKING:
    from prompt_toolkit.application import Application

NOTE_STYLES = {"recorded": ("•", "white"), "turn": ("#", "bold"), "round": ("#", "bold green"),
               "win": ("★", "bold green"), "flag": ("!", "bold red"), "refused": ("✗", "red"),
               "hint": ("?", "cyan"), "info": ("-", "dim"), "link": ("~", "magenta")}
VERDICT_STYLES = {"idle": ("→", "bold cyan"), "setup": ("→", "bold cyan"), "partial": ("…", "bold yellow"),
                  "complete": ("✓", "bold green"), "flag": ("!", "bold white on red"), "over": ("★", "bold green")}
DIE_GLYPHS = "⚀⚁⚂⚃⚄⚅"  #: a die face drawn, per pips (the pips themselves: shutbox.game.rules.DIE_FACES)
TILE_OPEN = "bold #2a1a0c on #e9c98f"
TILE_SHUT = "#6d5a44 on #2b1e12"
TILES_PER_ROW = 12
THROW_STYLE = "bold #f0b43c"  #: the throw stands out (as on the page: the move colour)


def tiles_row(session: LiveState) -> RenderableType:
    """The box drawn as tiles: open ones in wood with their number, shut ones dark; flagged ones red."""
    rules = session.rules
    shut = session.box
    verdict = session.verdict
    flagged = set(verdict.tiles) if verdict is not None and verdict.kind in ("flag", "setup") else set()
    moving = set(verdict.tiles) if verdict is not None and verdict.kind == "partial" else set()
    cells = []
    for t in rules.tile_numbers:
        is_shut = shut is not None and t in shut
        border = "red" if t in flagged else "yellow" if t in moving else "#6b4a2b"
        label = Text(" " if is_shut else str(t), justify="center", style=TILE_SHUT if is_shut else TILE_OPEN)
        cells.append(Panel(label, box=rich_box.HEAVY if t in flagged | moving else rich_box.ROUNDED, width=5,
                           style=TILE_SHUT if is_shut else TILE_OPEN, border_style=border, padding=(0, 0)))
    rows = -(-len(cells) // TILES_PER_ROW)
    per_row = -(-len(cells) // rows)  # larger sets: rows of equal length, at most TILES_PER_ROW
    grids: list[RenderableType] = []
    for start in range(0, len(cells), per_row):
        grid = Table.grid(padding=(0, 0))
        for _ in cells[start:start + per_row]:
            grid.add_column()
        grid.add_row(*cells[start:start + per_row])
        grids.append(grid)
    if shut is None:
        grids.insert(0, Text("(no snapshot from the box yet)", style="dim"))
    return Group(*grids)


def standings_table(session: LiveState) -> Table | None:
    game = session.game
    if game is None or not game.players:
        return None
    rules = game.rules
    table = Table(box=rich_box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("player")
    long_game = game.format.uncovering  # roles, and a turn's score is what it left undone
    if long_game:
        table.add_column("role")
    table.add_column("left undone" if long_game else "last turn", justify="right")
    if rules.cumulative:
        table.add_column(f"total (limit {rules.limit})", justify="right")
    if rules.stake:
        table.add_column("money", justify="right")
    for name in game.players:
        turns = [t for t in game.turns if t.player == name and t.ended]
        mark = "▶ " if name == game.current_player else "  "
        status = " (out)" if name in game.eliminated else " (lost)" if name == game.loser else ""
        style = "dim strike" if status else ("bold" if mark.strip() else "")
        row = [Text(mark + name + status, style=style)]
        if long_game:
            row.append(Text(player_role(game, name) or ""))
        last = player_score(game, name) if long_game else (turns[-1].score if turns else None)
        row.append(Text("–" if last is None else str(last)))
        if rules.cumulative:
            row.append(Text(str(game.totals[name]), style="bold"))
        if rules.stake:
            row.append(Text(money(game.balance[name])))
        table.add_row(*row)
    return table


def screen(session: LiveState, notes: list[tuple[str, str]], extra: list[str] | None = None, *,
           compact: bool = False) -> RenderableType:
    """The whole picture (without the input line); ``compact``: the tiles on one line, no spacing, the
    latest round only (for a short terminal)."""
    game = session.game
    parts: list[RenderableType] = [_board_part(session, extra, compact)]
    if game is not None and game.finished:  # the result is shown once, above
        notes = [(kind, text) for kind, text in notes if text != game_result_text(game)]
    if notes:
        parts.append(_notes_part(notes, gap=not compact))
    return Group(*parts)


def _board_part(session: LiveState, extra: list[str] | None, compact: bool) -> RenderableType:
    game = session.game
    parts: list[RenderableType] = [_head(session)]
    parts.extend(Text(line, style="dim") for line in extra or [])
    if game is not None and game.players and not game.finished:
        r = game.current_round
        parts.append(Text(f"round {r.number if r else 1} · {game.current_player}'s turn "
                          f"({PHASE_WORDS[game.phase].doing})", style="bold"))
    parts.append(tiles_line(session) if compact else tiles_row(session))
    parts.extend(_throw_and_verdict(session))
    table = standings_table(session)
    if table is not None:
        parts.append(table)
    more = _money_rounds_review(session)
    parts.extend(more[-2:] if compact else more)
    return Group(*parts)


def _notes_part(notes: list[tuple[str, str]], gap: bool = True) -> RenderableType:
    lines: list[RenderableType] = [Text("")] if gap else []
    for kind, text in notes:
        mark, style = NOTE_STYLES.get(kind, ("-", ""))
        lines.append(Text(f"{mark} {text}", style=style))
    return Group(*lines)


def tiles_line(session: LiveState) -> Text:
    """The box on one line (a short terminal): open tiles by number on wood, shut ones dark."""
    shut = session.box
    verdict = session.verdict
    flagged = set(verdict.tiles) if verdict is not None and verdict.kind in ("flag", "setup") else set()
    line = Text()
    if shut is None:
        return Text("(no snapshot from the box yet)", style="dim")
    for t in session.rules.tile_numbers:
        is_shut = t in shut
        style = (TILE_SHUT if is_shut else TILE_OPEN) + (" underline" if t in flagged else "")
        line.append(f" {'--' if is_shut else t:>2} ", style=style)
        line.append(" ")
    return line


def fitted(session: LiveState, notes: list[tuple[str, str]], extra: list[str] | None, width: int,
           height: int) -> str:
    """The picture as ANSI text of at most ``height`` lines that always ends with the newest message: older
    messages go first, then the picture is drawn compact, then the oldest lines are cut."""
    text = to_ansi(screen(session, notes, extra), width)
    if text.count("\n") <= height:
        return text
    board = to_ansi(_board_part(session, extra, compact=True), width).splitlines()
    game = session.game
    if game is not None and game.finished:
        notes = [(kind, t) for kind, t in notes if t != game_result_text(game)]
    kept: list[str] = []
    for note in reversed(notes):  # the newest message first, then older ones while they fit
        lines = to_ansi(_notes_part([note], gap=False), width).splitlines()
        if kept and len(board) + len(kept) + len(lines) > height:
            break
        kept[:0] = lines
    room = max(0, height - len(kept))
    top = board[:room]  # the head, the tiles, the throw and the verdict come first
    return "\n".join([*top, *kept][-height:]) + "\n"


def _head(session: LiveState) -> Text:
    rules = session.rules
    head = Text("Shut the Box", style="bold #e9c98f")
    head.append(f"  {rules_text(rules, brief=True)}", style="dim")
    if session.game_id is not None:
        head.append(f" · game {session.game_id}", style="dim")
    if session.boxless:
        head.append("  box-less", style="cyan")
    elif not session.connected:
        head.append("  box unplugged: last seen" if session.box is not None else "  waiting for the box",
                    style="bold magenta")
    return head


def _throw_and_verdict(session: LiveState) -> list[Text]:
    """The throw with its dice, then the instruction (or the flag, or the result)."""
    game = session.game
    lines = []
    if game is not None and game.pending is not None and not game.finished:
        p = game.pending
        throw = Text("throw  ", style="bold")
        if p.dice and len(p.dice) > 1:
            throw.append(" ".join(DIE_GLYPHS[d - 1] for d in p.dice) + "  " + " + ".join(map(str, p.dice))
                         + f" = {p.total}", style=THROW_STYLE)
        elif p.dice:
            throw.append(f"{DIE_GLYPHS[p.dice[0] - 1]}  one die: {p.total}", style=THROW_STYLE)
        else:
            throw.append(str(p.total), style=THROW_STYLE)
        lines.append(throw)
    verdict = session.verdict
    if game is not None and game.finished:
        lines.append(Text("★ " + game_result_text(game), style="bold green"))
    elif verdict is not None:
        mark, style = VERDICT_STYLES.get(verdict.kind, ("→", "bold"))
        lines.append(Text(f"{mark} {verdict.message}", style=style))
    return lines


def _money_rounds_review(session: LiveState) -> list[Text]:
    game = session.game
    lines: list[Text] = []
    if game is None:
        return lines
    current = game.current_round
    if game.rules.stake and current is not None and not current.finished:
        lines.append(Text(f"pool {current.pool:.2f}", style="dim"))
    if game.format.rounds_repeat and len(game.rounds) > 1:
        lines.extend(Text(round_result_text(game, r), style="dim") for r in game.rounds[-3:] if r.finished)
    review = session.review if isinstance(session.review, dict) else {}
    lines.extend(Text(str(line), style="cyan") for line in review.get("lines", []))
    return lines


def tip_lines(help_text: str, columns: int) -> list[str]:
    """The help under the picture, wrapped at words to the terminal's width."""
    import textwrap

    return textwrap.wrap(help_text, max(20, columns - 1)) or [""]


def body_height(rows: int, columns: int, help_text: str) -> int:
    """The lines left for the picture on a terminal of ``rows``: the help line (wrapped) and the prompt stay."""
    return max(3, rows - len(tip_lines(help_text, columns)) - 1)


def to_ansi(renderable: RenderableType, width: int) -> str:
    out = io.StringIO()
    Console(file=out, force_terminal=True, color_system="truecolor", width=max(40, width),
            legacy_windows=False).print(renderable)
    return out.getvalue()


class ScreenView:
    """The live screen on a terminal; see the module docstring."""

    def __init__(self, submit: Callable[[Typed | InputClosed], None], *, help_text: str,
                 extra: list[str] | None = None, history: int = 8) -> None:
        self.submit = submit
        self.help_text = help_text
        self.extra = extra or []
        self.notes: deque[tuple[str, str]] = deque(maxlen=history)
        self._session: LiveState | None = None
        self._text = ""
        self._app: Application[Any] | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    # -- the view ------------------------------------------------------------------------------

    def note(self, kind: str, text: str) -> None:
        self.notes.append((kind, text))
        if self._session is not None:
            self.show(self._session)

    def show(self, state: LiveState) -> None:
        self._session = state
        self.help_text = state.help
        width, height = 80, 24
        if self._app is not None:
            try:
                size = self._app.output.get_size()
                width, height = size.columns, size.rows
            except OSError:
                pass
        self._text = fitted(state, list(self.notes), self.extra, width - 1,
                            body_height(height, width, self.help_text))
        if self._app is not None:
            self._app.invalidate()

    def _columns(self) -> int:
        try:
            return self._app.output.get_size().columns if self._app is not None else 80
        except OSError:
            return 80

    # -- the application -----------------------------------------------------------------------

    def start(self) -> ScreenView:
        from prompt_toolkit.application import Application
        from prompt_toolkit.buffer import Buffer
        from prompt_toolkit.formatted_text import ANSI
        from prompt_toolkit.history import InMemoryHistory
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.layout import HSplit, Layout, Window
        from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl

        def accept(buffer: Buffer) -> bool:
            self.submit(Typed(buffer.text))
            return False  # clear the line

        entry = Buffer(multiline=False, accept_handler=accept, history=InMemoryHistory())
        keys = KeyBindings()

        @keys.add("c-c")
        def _interrupt(event: Any) -> None:
            _thread.interrupt_main()

        @keys.add("c-d")
        def _close(event: Any) -> None:
            if not entry.text:
                self.submit(InputClosed())

        body = Window(FormattedTextControl(lambda: ANSI(self._text)), wrap_lines=False, dont_extend_height=True)
        line = Window(BufferControl(entry), height=1, get_line_prefix=lambda *_: [("bold", "> ")])
        tip = Window(FormattedTextControl(lambda: [("class:tip", "\n".join(tip_lines(self.help_text,
                                                                                      self._columns())))]),
                     wrap_lines=True, dont_extend_height=True, style="fg:#888888")
        self._app = Application(layout=Layout(HSplit([body, tip, line]), focused_element=line), key_bindings=keys,
                                full_screen=False, erase_when_done=False, refresh_interval=None)

        def run() -> None:
            assert self._app is not None
            self._app.pre_run_callables.append(self._ready.set)
            try:
                self._app.run(handle_sigint=False)
            finally:
                self._ready.set()

        self._thread = threading.Thread(target=run, name="shutbox-screen", daemon=True)
        self._thread.start()
        self._ready.wait(5)
        return self

    def stop(self) -> None:
        """Leave the screen as it is (the last picture stays) and end the input line."""
        app = self._app
        if app is not None and app.is_running and app.loop is not None:
            app.loop.call_soon_threadsafe(lambda: app.exit() if app.is_running else None)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._app = None
