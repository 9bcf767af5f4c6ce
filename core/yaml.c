/* yaml.c — placeholder, being written. */
