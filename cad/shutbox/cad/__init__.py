"""CadQuery generators for the printable box, sliding tiles and dice (``shutbox.cad``)."""
