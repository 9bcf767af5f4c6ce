/* http.c — placeholder, being written. */
