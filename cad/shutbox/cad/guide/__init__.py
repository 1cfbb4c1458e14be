"""The build guide and its figures: plan drawings, how-to pictures and rendered previews."""
