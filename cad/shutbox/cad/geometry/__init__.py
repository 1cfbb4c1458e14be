"""The printable geometry: the layout of every dimension, and the solids of the box, tiles, dice, keys and sensors."""
