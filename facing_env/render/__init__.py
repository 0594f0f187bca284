"""Pictures of battles: text boards (:mod:`.text`), the drawing primitives (:mod:`.canvas`),
frames of a battle (:mod:`.frames`), the pygame window (:mod:`.window`), replays (:mod:`.replay`)
and their export to GIF, MP4 and HTML (:mod:`.export`).

Nothing here changes a battle: every function reads a :class:`~facing_env.rules.battle.Battle`
or a replay record. Pillow, matplotlib and pygame come with the ``render`` extra and are
imported only when a picture is asked for.
"""
