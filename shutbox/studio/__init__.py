"""The kit studio (``shutbox studio``): every kit setting in a browser form, a live 3D preview, a ready-to-print zip.

It sits over the parts as the command line does: the form is the settings model (:mod:`.schema`), a build is the
``shutbox kit`` command run in a process of its own (:mod:`.builds`), the preview is a GLB of the parts the build
put in the CAD part cache (:mod:`.glb`, made in a :mod:`.previewer` process), and :mod:`.server` serves the page
and the API. docs/studio.md is the reference.
"""
