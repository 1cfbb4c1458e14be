"""A live game at the table: the link to the box, commands, the referee, the record and the screens."""
