"""Control files and settings: the Gomill-format ``.ctl`` loader, its namespace (Player,
Matchup, Parameter...), the settings tables and the frozen configurations they produce."""
