"""PrusaSlicer: the recommended profiles, the plate projects, slicing a part and reading its G-code back."""
