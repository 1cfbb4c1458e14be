"""The base layer under every part: errors, safe text, bounded parsing, atomic output, caches, typefaces, progress."""
