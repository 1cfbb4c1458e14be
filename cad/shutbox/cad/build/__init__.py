"""Building the kit: every part meshed and exported, the part cache, the plates, the shared build."""
