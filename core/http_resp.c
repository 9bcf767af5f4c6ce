/* http_resp.c — placeholder, being written. */
