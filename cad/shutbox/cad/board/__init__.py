"""The switch-row circuit board: planned from the kit's layout and pin plan, routed and written as a KiCad 9 project
without KiCad (:mod:`.board`), checked and plotted by ``kicad-cli`` (:mod:`.fab`)."""
