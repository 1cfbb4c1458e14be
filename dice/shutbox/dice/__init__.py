"""Reading dice in a picture: the top face of each die it is sure of, and how many it saw but will not vouch for.

``pips`` finds pip-like spots, ``faces`` grows each spot's die face and checks its pips against the six
patterns, ``reader`` puts it together (``read_dice``), ``imagefile`` opens a picture safely, ``annotate``
draws what was read, ``rest`` tells when the dice in a camera's frames have come to rest.
"""
