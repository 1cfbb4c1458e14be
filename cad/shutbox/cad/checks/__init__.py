"""``shutbox cad check``: what a built kit must prove (it holds, clicks, carries; its numbers read back)."""
