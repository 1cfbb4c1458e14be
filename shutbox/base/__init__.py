"""The base layer under every part: errors, safe text, bounded parsing, atomic output, files the user names, caches,
side processes, typefaces, progress and word suggestions."""
