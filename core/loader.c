/* loader.c — placeholder, being written. */
