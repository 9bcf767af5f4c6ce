/* schema.c — placeholder, being written. */
